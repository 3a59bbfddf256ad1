-- A one-step job has no job_steps row: the job is its step, and its step's output is kept here
-- (docs/jobs.md "One-step jobs"). Jobs of several steps keep a row per step.
ALTER TABLE "jobs" ADD COLUMN "step_output" jsonb;
