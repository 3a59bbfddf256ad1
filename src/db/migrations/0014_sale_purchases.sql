CREATE TABLE "sale_purchases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" integer NOT NULL,
	"tx_hash" varchar(66) NOT NULL,
	"log_index" integer NOT NULL,
	"token_id" bigint NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" varchar(66) NOT NULL,
	"collection_id" uuid NOT NULL,
	"buyer" varchar(42) NOT NULL,
	"recipient" varchar(42) NOT NULL,
	"choices_status" varchar(20) NOT NULL,
	"choices" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"deck_id" uuid,
	"job_id" uuid,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "sale_purchases_event_token" ON "sale_purchases" USING btree ("chain_id","tx_hash","log_index","token_id");--> statement-breakpoint
CREATE INDEX "sale_purchases_collection_token" ON "sale_purchases" USING btree ("collection_id","token_id");