/** A webhook deliverer in its own process (the kill -9 test): passes until killed. */
import { openDatabase } from '../../src/db/client.ts';
import { webhookDelivererOn } from '../../src/services/wire-webhooks.ts';

const database = await openDatabase({ url: process.env.CHILD_DATABASE_URL!, poolSize: 2 });
const deliverer = webhookDelivererOn(
  database.db,
  { allowOrigins: [process.env.CHILD_ALLOW_ORIGIN!], retryScheduleMs: [150], disableAfter: 50, lockMs: Number(process.env.CHILD_LOCK_MS) },
  { info() {}, warn() {} },
);
for (;;) {
  await deliverer.pass();
  await new Promise((r) => setTimeout(r, 50));
}
