-- Every new job_history row wakes the job's SSE readers in every process on this database
-- (docs/jobs.md "SSE stream"): NOTIFY is delivered at commit, so a listener never reads ahead
-- of what it was told. Identical payloads in one transaction are folded into one notification.
CREATE OR REPLACE FUNCTION atelier_job_history_notify() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('atelier_job_history', NEW.job_id::text);
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER job_history_notify AFTER INSERT ON job_history
  FOR EACH ROW EXECUTE FUNCTION atelier_job_history_notify();
