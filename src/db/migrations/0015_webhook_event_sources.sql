-- Webhook events written by the database itself, in the transaction of the change they report
-- (docs/webhooks.md "Events"): a job's end, a payment, a purchase and a reveal each have several
-- writers (worker, reconciler, crash repair, replicas), so the event comes from the row change,
-- never from one code path that another could skip. `atelier_record_webhook_event` is the SQL twin
-- of db/webhooks.ts recordWebhookEvent: the same id (msg_ + the first 32 hex digits of sha256 of the
-- key), the same body, the same fan-out to matching enabled subscriptions, nothing twice per key.
CREATE OR REPLACE FUNCTION atelier_record_webhook_event(ev_type text, ev_key text, ev_owner text, ev_data jsonb)
RETURNS void AS $$
DECLARE
  ev_id text := 'msg_' || substr(encode(sha256(convert_to(ev_key, 'UTF8')), 'hex'), 1, 32);
  added int;
BEGIN
  INSERT INTO webhook_events (id, type, owner_id, payload)
  VALUES (ev_id, ev_type, ev_owner, jsonb_build_object(
    'type', ev_type,
    'timestamp', to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'data', ev_data))
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS added = ROW_COUNT;
  IF added = 0 THEN RETURN; END IF;
  INSERT INTO webhook_deliveries (subscription_id, event_id)
  SELECT s.id, ev_id FROM webhook_subscriptions s
  WHERE s.enabled AND ev_type = ANY(s.events) AND (s.owner_id IS NULL OR s.owner_id = ev_owner)
  ON CONFLICT DO NOTHING;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
-- artwork.completed / artwork.failed (a token's artwork job, or a generation into a token's deck) and sample.completed (a sample job):
-- once per job attempt, whichever process ends it.
CREATE OR REPLACE FUNCTION atelier_job_webhook_event() RETURNS trigger AS $$
DECLARE
  ev_type text;
  owner text;
  tok record;
  c record;
BEGIN
  IF NEW.status IS NOT DISTINCT FROM OLD.status OR NEW.status NOT IN ('completed', 'failed') THEN RETURN NEW; END IF;
  SELECT d.id AS deck_id, d.token_id INTO tok FROM outputs o JOIN decks d ON d.id = o.deck_id WHERE o.id = NEW.output_id;
  -- a token's artwork: the mint paths' jobs, or any generation into a minted token's deck
  IF NEW.job_type IN ('mint_generation', 'token_generation') OR tok.token_id IS NOT NULL THEN
    ev_type := CASE WHEN NEW.status = 'completed' THEN 'artwork.completed' ELSE 'artwork.failed' END;
  ELSIF NEW.job_type = 'sample' AND NEW.status = 'completed' THEN
    ev_type := 'sample.completed';
  ELSE
    RETURN NEW;
  END IF;
  SELECT user_id, chain_id, contract_address INTO c FROM collections WHERE id = NEW.collection_id;
  owner := CASE WHEN ev_type = 'sample.completed' THEN NEW.user_id ELSE coalesce(c.user_id, NEW.user_id) END;
  PERFORM atelier_record_webhook_event(ev_type, ev_type || ':' || NEW.id || ':' || NEW.retry_count, owner,
    jsonb_build_object(
      'job_id', NEW.id,
      'collection_id', NEW.collection_id,
      'chain_id', c.chain_id,
      'contract_address', c.contract_address,
      'token_id', tok.token_id,
      'deck_id', tok.deck_id,
      'output_id', NEW.output_id,
      'status', NEW.status,
      'url', CASE WHEN NEW.status = 'completed' THEN NEW.workflow_output END,
      'error', CASE WHEN NEW.status = 'failed' THEN NEW.error_message END));
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER jobs_webhook_event AFTER UPDATE OF status ON jobs
  FOR EACH ROW EXECUTE FUNCTION atelier_job_webhook_event();
--> statement-breakpoint
-- payment.received: a stablecoin payment claimed for a mint or samples (once per transaction).
CREATE OR REPLACE FUNCTION atelier_payment_webhook_event() RETURNS trigger AS $$
DECLARE
  c record;
BEGIN
  SELECT user_id, contract_address INTO c FROM collections WHERE id = NEW.collection_id;
  PERFORM atelier_record_webhook_event('payment.received', 'payment.received:' || NEW.chain_id || ':' || NEW.tx_hash, c.user_id,
    jsonb_build_object(
      'collection_id', NEW.collection_id,
      'chain_id', NEW.chain_id,
      'tx_hash', NEW.tx_hash,
      'token_address', NEW.token_address,
      'payer', NEW.payer,
      'recipient', NEW.recipient,
      'amount', NEW.amount::text,
      'purpose', NEW.purpose,
      'sample_count', NEW.sample_count));
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER payments_webhook_event AFTER INSERT ON payments
  FOR EACH ROW EXECUTE FUNCTION atelier_payment_webhook_event();
--> statement-breakpoint
-- token.purchased: each token of an on-chain Purchase the platform follows (once per token).
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
      'choices', NEW.choices_status));
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER sale_purchases_webhook_event AFTER INSERT ON sale_purchases
  FOR EACH ROW EXECUTE FUNCTION atelier_purchase_webhook_event();
--> statement-breakpoint
-- collection.revealed: the seed secret published on chain (once per contract).
CREATE OR REPLACE FUNCTION atelier_reveal_webhook_event() RETURNS trigger AS $$
DECLARE
  c record;
BEGIN
  IF OLD.reveal_tx_hash IS NOT NULL OR NEW.reveal_tx_hash IS NULL THEN RETURN NEW; END IF;
  SELECT user_id INTO c FROM collections WHERE id = NEW.collection_id;
  PERFORM atelier_record_webhook_event('collection.revealed',
    'collection.revealed:' || NEW.chain_id || ':' || NEW.contract_address, c.user_id,
    jsonb_build_object(
      'collection_id', NEW.collection_id,
      'chain_id', NEW.chain_id,
      'contract_address', NEW.contract_address,
      'commitment', NEW.commitment,
      'secret', NEW.secret,
      'reveal_tx_hash', NEW.reveal_tx_hash));
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER seed_secrets_webhook_event AFTER UPDATE OF reveal_tx_hash ON seed_secrets
  FOR EACH ROW EXECUTE FUNCTION atelier_reveal_webhook_event();
