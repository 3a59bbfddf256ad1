CREATE TABLE "exact_decks" (
	"collection_id" uuid NOT NULL,
	"chain_id" integer NOT NULL,
	"contract_address" varchar(42) NOT NULL,
	"spec" jsonb NOT NULL,
	"deck" jsonb NOT NULL,
	"provenance_hash" varchar(66) NOT NULL,
	"provenance_tx_hash" varchar(66),
	"offset_block" bigint,
	"offset_block_hash" varchar(66),
	"reveal_offset" integer,
	"assigned_at" timestamp with time zone,
	"batch_update_tx_hash" varchar(66),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exact_decks_chain_id_contract_address_pk" PRIMARY KEY("chain_id","contract_address")
);
--> statement-breakpoint
ALTER TABLE "exact_decks" ADD CONSTRAINT "exact_decks_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;