import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assess, liveStatusOf, type Progress } from './watchdog.ts';

const limits = { maxLagBlocks: 100, maxStallMs: 60_000 };
const now = 1_700_000_000_000;
const progress = (p: Partial<Progress> = {}): Progress => ({
  running: true,
  headBlock: 1000,
  lastIndexed: 1000,
  lastProgressAt: now - 1000,
  confirmations: 0,
  ...p,
});

describe('watchdog', () => {
  test('caught up and making progress: no warning', () => {
    assert.deepEqual(assess(progress(), limits, now), { lag_blocks: 0, behind: false, stalled: false, warnings: [] });
  });

  test('behind: more than maxLagBlocks between the safe head and the last indexed block', () => {
    assert.equal(assess(progress({ lastIndexed: 900 }), limits, now).behind, false); // exactly the limit
    const a = assess(progress({ lastIndexed: 899 }), limits, now);
    assert.equal(a.behind, true);
    assert.equal(a.lag_blocks, 101);
    assert.match(a.warnings[0]!, /101 blocks behind the head \(1000\)/);
    // Blocks waiting for their confirmations are not lag.
    assert.equal(assess(progress({ lastIndexed: 888, confirmations: 12 }), limits, now).lag_blocks, 100);
  });

  test('stalled: a running loop without a completed pass for maxStallMs', () => {
    const a = assess(progress({ lastProgressAt: now - 60_001 }), limits, now);
    assert.equal(a.stalled, true);
    assert.match(a.warnings[0]!, /no progress since/);
    assert.equal(assess(progress({ lastProgressAt: now - 60_001, running: false }), limits, now).stalled, false);
    assert.equal(assess(progress({ lastProgressAt: null }), limits, now).stalled, false);
  });

  test('unknown head or progress: no lag, no warning', () => {
    assert.deepEqual(assess(progress({ headBlock: null }), limits, now), { lag_blocks: null, behind: false, stalled: false, warnings: [] });
    assert.equal(assess(progress({ headBlock: 900 }), limits, now).lag_blocks, 0);
  });

  test('the live status shows flags as of now and the warnings of the last check', () => {
    const p = progress({ lastIndexed: 0 });
    const s = liveStatusOf(p, assess(p, limits, now), ['from the last check']);
    assert.equal(s.behind, true);
    assert.deepEqual(s.warnings, ['from the last check']);
    assert.equal(s.last_progress_at, new Date(now - 1000).toISOString());
  });
});
