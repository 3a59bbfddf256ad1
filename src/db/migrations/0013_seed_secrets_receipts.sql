CREATE TABLE "seed_secrets" (
	"collection_id" uuid NOT NULL,
	"chain_id" integer NOT NULL,
	"contract_address" varchar(42) NOT NULL,
	"secret" varchar(66) NOT NULL,
	"commitment" varchar(66) NOT NULL,
	"commit_tx_hash" varchar(66),
	"reveal_tx_hash" varchar(66),
	"revealed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "seed_secrets_chain_id_contract_address_pk" PRIMARY KEY("chain_id","contract_address")
);
--> statement-breakpoint
CREATE TABLE "token_receipts" (
	"output_id" uuid PRIMARY KEY NOT NULL,
	"collection_id" uuid NOT NULL,
	"token_id" integer NOT NULL,
	"receipt" jsonb NOT NULL,
	"leaf" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "seed_secrets" ADD CONSTRAINT "seed_secrets_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "token_receipts" ADD CONSTRAINT "token_receipts_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;