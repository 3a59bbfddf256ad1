-- The chain-write key of the mint request that claimed a payment: a retry of that request after a
-- crash before its mint transaction was recorded uses the payment again (docs/minting.md).
ALTER TABLE "payments" ADD COLUMN "request_key" varchar(300);
