/**
 * What `/metrics` reads at scrape time (docs/operations.md "Metrics"): aggregates from the database
 * and which singleton duties this process leads. The HTTP layer reaches the database only through
 * services (README "Architecture"), so the scrape handler imports these from here.
 */
export { dutyLeaders } from '../db/leased-duty.ts';
export { jobsByState, pendingSteps, txSenderState } from '../db/metrics.ts';
