CREATE TABLE "collection_exports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"collection_id" uuid NOT NULL,
	"status" varchar(20) DEFAULT 'building' NOT NULL,
	"closed_reason" varchar(20) NOT NULL,
	"requested_by" text,
	"root_cid" text,
	"images_cid" text,
	"car_key" text,
	"car_bytes" integer,
	"token_count" integer,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "collection_exports" ADD CONSTRAINT "collection_exports_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "collection_exports_collection_id_created_at_index" ON "collection_exports" USING btree ("collection_id","created_at");--> statement-breakpoint
CREATE INDEX "collection_exports_root_cid_index" ON "collection_exports" USING btree ("root_cid");--> statement-breakpoint
CREATE INDEX "collection_exports_images_cid_index" ON "collection_exports" USING btree ("images_cid");--> statement-breakpoint
CREATE UNIQUE INDEX "collection_exports_one_building" ON "collection_exports" USING btree ("collection_id") WHERE status = 'building';