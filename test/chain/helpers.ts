/** Shared bits of the chain tests: a tiny hand-assembled contract and row queries. */
import { eq } from 'drizzle-orm';
import type { Hex } from 'viem';
import type { Db } from '../../src/db/client.ts';
import { chainTransactions } from '../../src/db/schema/index.ts';

/**
 * Runtime (19 bytes): a call with value reverts; any other call increments storage slot 0.
 *   CALLVALUE PUSH1 0x0e JUMPI  PUSH1 0 SLOAD PUSH1 1 ADD PUSH1 0 SSTORE STOP  JUMPDEST PUSH1 0 DUP1 REVERT
 * Init code (11 bytes) copies the runtime to memory and returns it:
 *   PUSH1 0x13 DUP1 PUSH1 0x0b PUSH1 0 CODECOPY PUSH1 0 RETURN
 */
export const COUNTER_RUNTIME: Hex = '0x34600e57600054600101600055005b600080fd';
export const COUNTER_INIT: Hex = `0x601380600b6000396000f3${COUNTER_RUNTIME.slice(2)}`;

export async function rowsOf(db: Db) {
  return db.select().from(chainTransactions);
}

export async function rowById(db: Db, id: string) {
  const [row] = await db.select().from(chainTransactions).where(eq(chainTransactions.id, id));
  return row!;
}

export const randomAddress = (): Hex =>
  `0x${Array.from({ length: 40 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('')}`;
