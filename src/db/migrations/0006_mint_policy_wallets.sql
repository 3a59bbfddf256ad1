CREATE TABLE "wallet_nonces" (
	"nonce" varchar(64) PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mint_wallet_counts" (
	"collection_id" uuid NOT NULL,
	"wallet" varchar(42) NOT NULL,
	"minted" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mint_wallet_counts_collection_id_wallet_pk" PRIMARY KEY("collection_id","wallet")
);
--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "mint_access" varchar(10) DEFAULT 'owner' NOT NULL;--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "mint_price" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "payout_address" varchar(42);--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "max_per_wallet" integer;--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "mint_allowlist" jsonb;--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "mint_merkle_root" varchar(66);--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "mint_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "mint_end" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "mint_wallet_counts" ADD CONSTRAINT "mint_wallet_counts_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;