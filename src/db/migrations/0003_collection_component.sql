ALTER TABLE "collections" ADD COLUMN "component" jsonb;--> statement-breakpoint
ALTER TABLE "collections" ADD COLUMN "source_metadata" jsonb;