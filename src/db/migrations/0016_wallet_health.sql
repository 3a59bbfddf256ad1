CREATE TABLE "wallet_health" (
	"chain_id" integer NOT NULL,
	"address" varchar(42) NOT NULL,
	"balance_wei" numeric(78, 0) NOT NULL,
	"threshold_wei" numeric(78, 0) NOT NULL,
	"low" boolean DEFAULT false NOT NULL,
	"low_crossings" integer DEFAULT 0 NOT NULL,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wallet_health_chain_id_address_pk" PRIMARY KEY("chain_id","address")
);
