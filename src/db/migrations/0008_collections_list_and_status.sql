CREATE INDEX "collections_created_at_id_index" ON "collections" USING btree ("created_at","id");--> statement-breakpoint
-- A deployed record says so in `status` too (issue 15: it stayed "draft" after a deploy).
UPDATE "collections" SET "status" = 'deployed' WHERE "contract_address" IS NOT NULL AND "status" = 'draft';
