-- Freezing (docs/permanence.md "Freezing"): when a collection's metadata was frozen on chain, at which bundle, by which transaction.
ALTER TABLE "collections" ADD COLUMN "frozen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "frozen_root_cid" text;--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "frozen_tx_hash" varchar(66);