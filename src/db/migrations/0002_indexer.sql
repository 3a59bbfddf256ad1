CREATE TABLE "app_token_mints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" integer NOT NULL,
	"app_address" varchar(42) NOT NULL,
	"to_address" varchar(42) NOT NULL,
	"start_token_id" numeric(78, 0) NOT NULL,
	"quantity" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" varchar(66) NOT NULL,
	"tx_hash" varchar(66) NOT NULL,
	"log_index" integer NOT NULL,
	"timestamp" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "apps" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" integer NOT NULL,
	"address" varchar(42) NOT NULL,
	"factory_address" varchar(42) NOT NULL,
	"name" text NOT NULL,
	"symbol" text NOT NULL,
	"creator" varchar(42) NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" varchar(66) NOT NULL,
	"tx_hash" varchar(66) NOT NULL,
	"log_index" integer NOT NULL,
	"timestamp" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contract_upgrades" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" integer NOT NULL,
	"contract_address" varchar(42) NOT NULL,
	"init_address" varchar(42) NOT NULL,
	"init_calldata" text NOT NULL,
	"cuts" jsonb NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" varchar(66) NOT NULL,
	"tx_hash" varchar(66) NOT NULL,
	"log_index" integer NOT NULL,
	"timestamp" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "indexed_blocks" (
	"chain_id" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" varchar(66) NOT NULL,
	"parent_hash" varchar(66),
	CONSTRAINT "indexed_blocks_chain_id_block_number_pk" PRIMARY KEY("chain_id","block_number")
);
--> statement-breakpoint
CREATE TABLE "owner_token_transfers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" integer NOT NULL,
	"app_address" varchar(42) NOT NULL,
	"from_address" varchar(42) NOT NULL,
	"to_address" varchar(42) NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" varchar(66) NOT NULL,
	"tx_hash" varchar(66) NOT NULL,
	"log_index" integer NOT NULL,
	"timestamp" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "indexer_state" ADD COLUMN "head_block" bigint;--> statement-breakpoint
ALTER TABLE "indexer_state" ADD COLUMN "start_block" bigint;--> statement-breakpoint
ALTER TABLE "indexer_state" ADD COLUMN "last_error" text;--> statement-breakpoint
CREATE UNIQUE INDEX "app_token_mints_chain_tx_log" ON "app_token_mints" USING btree ("chain_id","tx_hash","log_index");--> statement-breakpoint
CREATE INDEX "app_token_mints_chain_id_app_address_block_number_index" ON "app_token_mints" USING btree ("chain_id","app_address","block_number");--> statement-breakpoint
CREATE INDEX "app_token_mints_chain_id_block_number_index" ON "app_token_mints" USING btree ("chain_id","block_number");--> statement-breakpoint
CREATE UNIQUE INDEX "apps_chain_address" ON "apps" USING btree ("chain_id","address");--> statement-breakpoint
CREATE INDEX "apps_chain_id_block_number_index" ON "apps" USING btree ("chain_id","block_number");--> statement-breakpoint
CREATE UNIQUE INDEX "contract_upgrades_chain_tx_log" ON "contract_upgrades" USING btree ("chain_id","tx_hash","log_index");--> statement-breakpoint
CREATE INDEX "contract_upgrades_chain_id_contract_address_block_number_index" ON "contract_upgrades" USING btree ("chain_id","contract_address","block_number");--> statement-breakpoint
CREATE INDEX "contract_upgrades_chain_id_block_number_index" ON "contract_upgrades" USING btree ("chain_id","block_number");--> statement-breakpoint
CREATE UNIQUE INDEX "owner_token_transfers_chain_tx_log" ON "owner_token_transfers" USING btree ("chain_id","tx_hash","log_index");--> statement-breakpoint
CREATE INDEX "owner_token_transfers_chain_id_app_address_block_number_index" ON "owner_token_transfers" USING btree ("chain_id","app_address","block_number");--> statement-breakpoint
CREATE INDEX "owner_token_transfers_chain_id_block_number_index" ON "owner_token_transfers" USING btree ("chain_id","block_number");