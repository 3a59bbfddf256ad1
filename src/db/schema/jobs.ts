/** Jobs, their steps, history and retry backups, and workflows (docs/api/content.md §2.4, §2.5). */
import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, jsonb, pgTable, real, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, ts, updatedAt } from './columns.ts';

export const jobs = pgTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    name: varchar('name', { length: 200 }).notNull().default(''),
    description: text('description').notNull().default(''),
    status: varchar('status', { length: 20 }).notNull().default('pending'),
    progress: real('progress'),
    error_message: text('error_message'),
    job_type: varchar('job_type', { length: 50 }).notNull().default('collection_generation'),
    priority: integer('priority').notNull().default(50),
    workflow_id: text('workflow_id'),
    workflow_output: text('workflow_output'),
    retry_count: integer('retry_count').notNull().default(0),
    data: jsonb('data').notNull(),
    user_id: text('user_id'),
    collection_id: uuid('collection_id'),
    output_id: uuid('output_id'),
    created_at: createdAt(),
    updated_at: updatedAt(),
    started_at: ts('started_at'),
    completed_at: ts('completed_at'),
    /** A one-step job's step output: such a job has no job_steps row, the job is its step (docs/jobs.md "One-step jobs"). */
    step_output: jsonb('step_output'),
  },
  (t) => [index().on(t.status), index().on(t.collection_id), index().on(t.user_id)],
);

export const jobSteps = pgTable(
  'job_steps',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    job_id: text('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    step_name: varchar('step_name', { length: 100 }).notNull(),
    step_type: varchar('step_type', { length: 50 }).notNull(),
    step_order: integer('step_order').notNull(),
    status: varchar('status', { length: 20 }).notNull().default('pending'),
    input_data: jsonb('input_data'),
    output_data: jsonb('output_data'),
    retry_attempt: integer('retry_attempt').notNull().default(0),
    error_message: text('error_message'),
    queue_job_id: text('queue_job_id'),
    started_at: ts('started_at'),
    completed_at: ts('completed_at'),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
  (t) => [uniqueIndex('job_steps_job_order_attempt').on(t.job_id, t.step_order, t.retry_attempt), index().on(t.status, t.created_at)],
);

/** Append-only; the bigserial id is the SSE event id, so a reconnect resumes after it. */
export const jobHistory = pgTable(
  'job_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    job_id: text('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    status: varchar('status', { length: 20 }).notNull(),
    message: text('message').notNull().default(''),
    progress: real('progress'),
    data: jsonb('data'),
    created_at: createdAt(),
  },
  (t) => [index().on(t.job_id, t.id)],
);

export const jobRetryBackups = pgTable(
  'job_retry_backups',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    job_id: text('job_id')
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    retry_attempt: integer('retry_attempt').notNull(),
    original_status: varchar('original_status', { length: 20 }).notNull(),
    original_data: jsonb('original_data').notNull(),
    original_error: text('original_error'),
    original_workflow_output: text('original_workflow_output'),
    backed_up_at: createdAt(),
  },
  (t) => [uniqueIndex('job_retry_backups_job_attempt').on(t.job_id, t.retry_attempt)],
);

export const workflows = pgTable('workflows', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: varchar('name', { length: 100 }).notNull().unique(),
  label: varchar('label', { length: 200 }).notNull(),
  type: varchar('type', { length: 20 }).notNull().default('basic'),
  description: text('description').notNull().default(''),
  data: jsonb('data'),
  models: jsonb('models').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  custom_nodes: jsonb('custom_nodes').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  output_mime_type: varchar('output_mime_type', { length: 100 }).notNull().default('image/png'),
  display: boolean('display').notNull().default(true),
  order: integer('order').notNull().default(0),
  requires_api_key: boolean('requires_api_key').notNull().default(false),
  created_at: createdAt(),
  updated_at: updatedAt(),
});
