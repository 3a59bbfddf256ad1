ALTER TABLE "payments" ADD COLUMN "sample_count" integer;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "lease_until" timestamp with time zone;