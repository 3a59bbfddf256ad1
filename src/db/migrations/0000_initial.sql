CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"name" varchar(100) NOT NULL,
	"key_hash" text NOT NULL,
	"key_prefix" varchar(16) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "chain_transactions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"idempotency_key" text,
	"purpose" varchar(50) NOT NULL,
	"chain_id" integer NOT NULL,
	"from_address" varchar(42) NOT NULL,
	"to_address" varchar(42),
	"data" text,
	"value" numeric(78, 0) DEFAULT '0' NOT NULL,
	"nonce" integer,
	"hash" varchar(66),
	"replaced_hashes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" varchar(20) DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"receipt" jsonb,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chain_transactions_idempotency_key_unique" UNIQUE("idempotency_key")
);
--> statement-breakpoint
CREATE TABLE "collections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text,
	"title" varchar(200) NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"editions" integer DEFAULT 1 NOT NULL,
	"price" double precision DEFAULT 0 NOT NULL,
	"blockchain" varchar(20) DEFAULT 'ARBITRUM' NOT NULL,
	"data" jsonb NOT NULL,
	"project_id" uuid,
	"social_org" varchar(30),
	"social_identifier" varchar(255),
	"is_custodial" boolean DEFAULT false NOT NULL,
	"custodied_for" uuid,
	"status" varchar(20) DEFAULT 'draft' NOT NULL,
	"cover_image_url" text,
	"contract_address" varchar(42),
	"chain_id" integer,
	"deploy_tx_hash" varchar(66),
	"base_token_uri" text,
	"mint_status" varchar(20) DEFAULT 'draft' NOT NULL,
	"max_supply" integer,
	"tokens_minted" integer DEFAULT 0 NOT NULL,
	"royalty_bps" integer,
	"royalty_receiver" varchar(42),
	"is_global" boolean DEFAULT false NOT NULL,
	"input_type" varchar(10),
	"output_type" varchar(10),
	"is_featured" boolean DEFAULT false NOT NULL,
	"generations_per_payment" integer DEFAULT 1 NOT NULL,
	"free_samples_per_collection" integer DEFAULT 10 NOT NULL,
	"free_samples_per_user" integer DEFAULT 3 NOT NULL,
	"compute_cost_per_sample" numeric(78, 0) DEFAULT '1000000' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_balances" (
	"user_id" text PRIMARY KEY NOT NULL,
	"balance" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "decks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"collection_id" uuid NOT NULL,
	"user_id" text,
	"name" varchar(200) DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"status" varchar(20) DEFAULT 'active' NOT NULL,
	"output_count" integer DEFAULT 0 NOT NULL,
	"cover_output_id" uuid,
	"published_at" timestamp with time zone,
	"is_custodial" boolean DEFAULT false NOT NULL,
	"custodied_for" uuid,
	"token_id" bigint,
	"mint_tx_hash" varchar(66),
	"mint_recipient" varchar(42),
	"mint_status" varchar(20),
	"minted_at" timestamp with time zone,
	"metadata_uri" text,
	"current_owner" varchar(42),
	"last_transfer_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "flat_files" (
	"id" serial PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"mime_type" varchar(100) NOT NULL,
	"size" integer,
	"user_id" text,
	"rel_type" varchar(50) DEFAULT 'upload' NOT NULL,
	"stream_asset_id" text,
	"stream_playback_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"key" text NOT NULL,
	"scope" text NOT NULL,
	"status" varchar(20) DEFAULT 'in_progress' NOT NULL,
	"status_code" integer,
	"response" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
CREATE TABLE "indexer_state" (
	"id" text PRIMARY KEY NOT NULL,
	"status" varchar(20) DEFAULT 'idle' NOT NULL,
	"last_indexed_block" bigint DEFAULT 0 NOT NULL,
	"last_indexed_hash" varchar(66),
	"chain_id" integer NOT NULL,
	"started_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"job_id" text NOT NULL,
	"status" varchar(20) NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"progress" real,
	"data" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_retry_backups" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"job_id" text NOT NULL,
	"retry_attempt" integer NOT NULL,
	"original_status" varchar(20) NOT NULL,
	"original_data" jsonb NOT NULL,
	"original_error" text,
	"original_workflow_output" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_steps" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"job_id" text NOT NULL,
	"step_name" varchar(100) NOT NULL,
	"step_type" varchar(50) NOT NULL,
	"step_order" integer NOT NULL,
	"status" varchar(20) DEFAULT 'pending' NOT NULL,
	"input_data" jsonb,
	"output_data" jsonb,
	"retry_attempt" integer DEFAULT 0 NOT NULL,
	"error_message" text,
	"queue_job_id" text,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" varchar(200) DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"status" varchar(20) DEFAULT 'pending' NOT NULL,
	"progress" real,
	"error_message" text,
	"job_type" varchar(50) DEFAULT 'collection_generation' NOT NULL,
	"priority" integer DEFAULT 50 NOT NULL,
	"workflow_id" text,
	"workflow_output" text,
	"retry_count" integer DEFAULT 0 NOT NULL,
	"data" jsonb NOT NULL,
	"user_id" text,
	"collection_id" uuid,
	"output_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "outputs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"collection_id" uuid NOT NULL,
	"deck_id" uuid,
	"job_id" text,
	"user_id" text,
	"status" varchar(20) DEFAULT 'pending' NOT NULL,
	"source" varchar(30) DEFAULT 'unknown' NOT NULL,
	"url" text,
	"mime_type" varchar(100),
	"thumbnail_url" text,
	"flat_file_id" integer,
	"input_metadata" jsonb,
	"output_metadata" jsonb,
	"error_message" text,
	"is_custodial" boolean DEFAULT false NOT NULL,
	"custodied_for" uuid,
	"parent_output_id" uuid,
	"token_metadata" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" integer NOT NULL,
	"tx_hash" varchar(66) NOT NULL,
	"token_address" varchar(42) NOT NULL,
	"payer" varchar(42) NOT NULL,
	"recipient" varchar(42) NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"purpose" varchar(30) NOT NULL,
	"collection_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sample_allowances" (
	"collection_id" uuid NOT NULL,
	"subject" text NOT NULL,
	"used" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sample_allowances_collection_id_subject_pk" PRIMARY KEY("collection_id","subject")
);
--> statement-breakpoint
CREATE TABLE "samples" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"collection_id" uuid NOT NULL,
	"output_id" uuid NOT NULL,
	"job_id" text,
	"user_id" text,
	"wallet_address" varchar(42) NOT NULL,
	"is_free" boolean NOT NULL,
	"payment_id" uuid,
	"traits" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "social_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"social_org" varchar(30) NOT NULL,
	"social_identifier" varchar(255) NOT NULL,
	"miniapp_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transfers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" integer NOT NULL,
	"collection_address" varchar(42) NOT NULL,
	"token_id" numeric(78, 0) NOT NULL,
	"deck_id" uuid,
	"from_address" varchar(42) NOT NULL,
	"to_address" varchar(42) NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" varchar(66) NOT NULL,
	"tx_hash" varchar(66) NOT NULL,
	"log_index" integer NOT NULL,
	"timestamp" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_identities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"provider" varchar(30) NOT NULL,
	"provider_user_id" varchar(500) NOT NULL,
	"provider_email" varchar(255),
	"provider_metadata" jsonb,
	"linked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" varchar(255),
	"display_name" varchar(255),
	"avatar_url" varchar(500),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_login_at" timestamp with time zone,
	"is_active" boolean DEFAULT true NOT NULL,
	"is_blocked" boolean DEFAULT false NOT NULL,
	CONSTRAINT "users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "workflows" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" varchar(100) NOT NULL,
	"label" varchar(200) NOT NULL,
	"type" varchar(20) DEFAULT 'basic' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"data" jsonb,
	"models" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"custom_nodes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"output_mime_type" varchar(100) DEFAULT 'image/png' NOT NULL,
	"display" boolean DEFAULT true NOT NULL,
	"order" integer DEFAULT 0 NOT NULL,
	"requires_api_key" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflows_name_unique" UNIQUE("name")
);
--> statement-breakpoint
ALTER TABLE "collections" ADD CONSTRAINT "collections_custodied_for_social_links_id_fk" FOREIGN KEY ("custodied_for") REFERENCES "public"."social_links"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "decks" ADD CONSTRAINT "decks_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "decks" ADD CONSTRAINT "decks_custodied_for_social_links_id_fk" FOREIGN KEY ("custodied_for") REFERENCES "public"."social_links"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_history" ADD CONSTRAINT "job_history_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_retry_backups" ADD CONSTRAINT "job_retry_backups_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_steps" ADD CONSTRAINT "job_steps_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outputs" ADD CONSTRAINT "outputs_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outputs" ADD CONSTRAINT "outputs_deck_id_decks_id_fk" FOREIGN KEY ("deck_id") REFERENCES "public"."decks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outputs" ADD CONSTRAINT "outputs_flat_file_id_flat_files_id_fk" FOREIGN KEY ("flat_file_id") REFERENCES "public"."flat_files"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outputs" ADD CONSTRAINT "outputs_custodied_for_social_links_id_fk" FOREIGN KEY ("custodied_for") REFERENCES "public"."social_links"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sample_allowances" ADD CONSTRAINT "sample_allowances_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "samples" ADD CONSTRAINT "samples_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_identities" ADD CONSTRAINT "user_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chain_transactions_status_index" ON "chain_transactions" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "chain_transactions_wallet_nonce" ON "chain_transactions" USING btree ("chain_id","from_address","nonce");--> statement-breakpoint
CREATE INDEX "collections_user_id_index" ON "collections" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "collections_contract_address_chain_id_index" ON "collections" USING btree ("contract_address","chain_id");--> statement-breakpoint
CREATE INDEX "decks_collection_id_index" ON "decks" USING btree ("collection_id");--> statement-breakpoint
CREATE INDEX "decks_user_id_index" ON "decks" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "decks_collection_token" ON "decks" USING btree ("collection_id","token_id");--> statement-breakpoint
CREATE INDEX "flat_files_user_id_index" ON "flat_files" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "job_history_job_id_id_index" ON "job_history" USING btree ("job_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "job_retry_backups_job_attempt" ON "job_retry_backups" USING btree ("job_id","retry_attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "job_steps_job_order_attempt" ON "job_steps" USING btree ("job_id","step_order","retry_attempt");--> statement-breakpoint
CREATE INDEX "job_steps_status_created_at_index" ON "job_steps" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "jobs_status_index" ON "jobs" USING btree ("status");--> statement-breakpoint
CREATE INDEX "jobs_collection_id_index" ON "jobs" USING btree ("collection_id");--> statement-breakpoint
CREATE INDEX "jobs_user_id_index" ON "jobs" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "outputs_collection_id_status_index" ON "outputs" USING btree ("collection_id","status");--> statement-breakpoint
CREATE INDEX "outputs_deck_id_index" ON "outputs" USING btree ("deck_id");--> statement-breakpoint
CREATE INDEX "outputs_job_id_index" ON "outputs" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "outputs_completed_at_index" ON "outputs" USING btree ("completed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_chain_tx" ON "payments" USING btree ("chain_id","tx_hash");--> statement-breakpoint
CREATE INDEX "samples_collection_id_created_at_index" ON "samples" USING btree ("collection_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "social_links_org_identifier" ON "social_links" USING btree ("social_org","social_identifier");--> statement-breakpoint
CREATE UNIQUE INDEX "transfers_chain_tx_log" ON "transfers" USING btree ("chain_id","tx_hash","log_index");--> statement-breakpoint
CREATE INDEX "transfers_deck_id_block_number_index" ON "transfers" USING btree ("deck_id","block_number");--> statement-breakpoint
CREATE INDEX "transfers_chain_id_collection_address_token_id_index" ON "transfers" USING btree ("chain_id","collection_address","token_id");--> statement-breakpoint
CREATE INDEX "transfers_chain_id_block_number_index" ON "transfers" USING btree ("chain_id","block_number");--> statement-breakpoint
CREATE UNIQUE INDEX "user_identities_provider_uid" ON "user_identities" USING btree ("provider","provider_user_id");--> statement-breakpoint
CREATE INDEX "user_identities_user_id_index" ON "user_identities" USING btree ("user_id");