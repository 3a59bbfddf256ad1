/**
 * The whole data model of both spec documents, one PostgreSQL dialect for PGlite and PostgreSQL,
 * one module per table group. `user_id` columns are text: they hold the internal user uuid when
 * the identity model resolved one, else the provider id (docs/api/content.md §2.8 rule 5), so no
 * foreign key yet (rule 6).
 */
export * from './identity.ts';
export * from './content.ts';
export * from './jobs.ts';
export * from './nft.ts';
export * from './indexer.ts';
export * from './ops.ts';
export * from './webhooks.ts';
export * from './fairness.ts';
export * from './sales.ts';
export * from './permanence.ts';
