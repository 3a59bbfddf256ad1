CREATE TABLE "sale_scanned_txs" (
	"chain_id" integer NOT NULL,
	"tx_hash" varchar(66) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sale_scanned_txs_chain_id_tx_hash_pk" PRIMARY KEY("chain_id","tx_hash")
);
--> statement-breakpoint
ALTER TABLE "sale_purchases" ADD COLUMN "currency" varchar(42);--> statement-breakpoint
ALTER TABLE "sale_purchases" ADD COLUMN "amount" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "sale_purchases" ADD COLUMN "quantity" integer;--> statement-breakpoint
ALTER TABLE "sale_purchases" ADD COLUMN "payouts" jsonb;--> statement-breakpoint
-- token.purchased carries the payment (docs/webhooks.md): currency, the purchase's amount and
-- token count, and each payout recipient's share.
CREATE OR REPLACE FUNCTION atelier_purchase_webhook_event() RETURNS trigger AS $$
DECLARE
  c record;
BEGIN
  SELECT user_id, contract_address INTO c FROM collections WHERE id = NEW.collection_id;
  PERFORM atelier_record_webhook_event('token.purchased',
    'token.purchased:' || NEW.chain_id || ':' || NEW.tx_hash || ':' || NEW.log_index || ':' || NEW.token_id, c.user_id,
    jsonb_build_object(
      'collection_id', NEW.collection_id,
      'chain_id', NEW.chain_id,
      'contract_address', c.contract_address,
      'token_id', NEW.token_id,
      'buyer', NEW.buyer,
      'recipient', NEW.recipient,
      'tx_hash', NEW.tx_hash,
      'log_index', NEW.log_index,
      'block_number', NEW.block_number,
      'choices', NEW.choices_status,
      'currency', NEW.currency,
      'amount', NEW.amount::text,
      'quantity', NEW.quantity,
      'payouts', NEW.payouts));
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
