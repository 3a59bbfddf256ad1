/** Fee-bump arithmetic of replacements and the gas margin. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bumpFee, MIN_BUMP_PERMILLE, replacementCap, replacementFees, withGasMargin } from './fees.ts';

const gwei = (n: number) => BigInt(Math.round(n * 1e9));
const zero = { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n };

describe('bumpFee', () => {
  test('raises by the per mille, plus one wei', () => {
    assert.equal(bumpFee(1000n, 200n), 1201n);
    assert.equal(bumpFee(gwei(10), 125n), gwei(11.25) + 1n);
  });

  test('a zero or tiny fee still strictly rises', () => {
    assert.equal(bumpFee(0n, 200n), 1n);
    assert.equal(bumpFee(1n, 125n), 2n);
  });
});

describe('replacementFees', () => {
  const old = { maxFeePerGas: gwei(20), maxPriorityFeePerGas: gwei(2) };

  test('the old fees bumped when the network got no dearer', () => {
    assert.deepEqual(replacementFees(old, { maxFeePerGas: gwei(5), maxPriorityFeePerGas: gwei(1) }, 200n), {
      maxFeePerGas: gwei(24) + 1n,
      maxPriorityFeePerGas: gwei(2.4) + 1n,
    });
  });

  test("the network's estimate when it is above the bump", () => {
    assert.deepEqual(replacementFees(old, { maxFeePerGas: gwei(60), maxPriorityFeePerGas: gwei(5) }, 200n), {
      maxFeePerGas: gwei(60),
      maxPriorityFeePerGas: gwei(5),
    });
  });

  test('the fee is never below the tip', () => {
    const r = replacementFees(
      { maxFeePerGas: gwei(1), maxPriorityFeePerGas: gwei(1) },
      { maxFeePerGas: 0n, maxPriorityFeePerGas: gwei(9) },
      200n,
    );
    assert.deepEqual(r, { maxFeePerGas: gwei(9), maxPriorityFeePerGas: gwei(9) });
  });

  test('every replacement clears the +12.5 % nodes require', () => {
    const r = replacementFees(old, zero, MIN_BUMP_PERMILLE)!;
    assert.ok(r.maxFeePerGas > (old.maxFeePerGas * 1125n) / 1000n);
    assert.ok(r.maxPriorityFeePerGas > (old.maxPriorityFeePerGas * 1125n) / 1000n);
  });

  test('a cap clamps the fee (and the tip to it) while the bump still clears 12.5 %', () => {
    const cap = gwei(23);
    assert.deepEqual(replacementFees(old, zero, 200n, cap), { maxFeePerGas: cap, maxPriorityFeePerGas: gwei(2.4) + 1n });
    const tipHeavy = { maxFeePerGas: gwei(20), maxPriorityFeePerGas: gwei(20) };
    assert.deepEqual(replacementFees(tipHeavy, zero, 200n, gwei(23)), { maxFeePerGas: gwei(23), maxPriorityFeePerGas: gwei(23) });
  });

  test('at the cap, when the node would refuse the replacement: null (keep the current one)', () => {
    assert.equal(replacementFees(old, zero, 200n, gwei(22)), null);
    assert.equal(replacementFees(old, zero, 200n, old.maxFeePerGas), null);
  });

  test('a cap above the bumped fee changes nothing', () => {
    assert.deepEqual(replacementFees(old, zero, 200n, gwei(100)), replacementFees(old, zero, 200n));
  });
});

describe('withGasMargin', () => {
  test('estimate × percent / 100, rounded down', () => {
    assert.equal(withGasMargin(21_000n, 120), 25_200n);
    assert.equal(withGasMargin(77_777n, 120), 93_332n);
    assert.equal(withGasMargin(50_000n, 100), 50_000n);
  });
});

describe('replacementCap: bumps are bounded', () => {
  test('the current estimate times the multiplier', () => {
    assert.equal(replacementCap(gwei(10), 3), gwei(30));
    assert.equal(replacementCap(gwei(10), 1.5), gwei(15));
  });
  test('the absolute cap wins when lower; an unknown estimate leaves only it', () => {
    assert.equal(replacementCap(gwei(10), 3, gwei(20)), gwei(20));
    assert.equal(replacementCap(gwei(10), 3, gwei(50)), gwei(30));
    assert.equal(replacementCap(0n, 3, gwei(50)), gwei(50));
    assert.equal(replacementCap(0n, 3), undefined);
  });
  test('repeated +20 % bumps stop at the bound: the replacement is refused (null) once past it', () => {
    let fees = { maxFeePerGas: gwei(10), maxPriorityFeePerGas: gwei(1) };
    const current = { maxFeePerGas: gwei(10), maxPriorityFeePerGas: gwei(1) };
    let bumps = 0;
    for (;;) {
      const next = replacementFees(fees, current, 200n, replacementCap(current.maxFeePerGas, 3));
      if (!next) break;
      fees = next;
      bumps++;
      assert.ok(bumps < 50, 'bumps must stop');
    }
    assert.ok(fees.maxFeePerGas <= gwei(30));
    assert.ok(bumps >= 5 && bumps <= 7, `bumps ${bumps}`);
  });
});
