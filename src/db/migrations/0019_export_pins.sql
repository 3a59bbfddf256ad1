ALTER TABLE "collection_exports" ADD COLUMN "pin_status" varchar(20) DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "collection_exports" ADD COLUMN "pin_target" text;--> statement-breakpoint
ALTER TABLE "collection_exports" ADD COLUMN "pin_error" text;--> statement-breakpoint
ALTER TABLE "collection_exports" ADD COLUMN "pin_started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "collection_exports" ADD COLUMN "pinned_at" timestamp with time zone;