/** Send requests: refused when they can never be sent; normalized so a key's repeat compares equal. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkRequest, intentOf, sameWrite } from './intent.ts';

const wallet = { chainId: 31337, address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' };
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('checkRequest', () => {
  test('purpose 1 to 50 characters, value not negative, a creation needs init code', () => {
    assert.throws(() => checkRequest({ purpose: '', to: TO }), /purpose/);
    assert.throws(() => checkRequest({ purpose: 'x'.repeat(51), to: TO }), /purpose/);
    assert.throws(() => checkRequest({ purpose: 'pay', to: TO, value: -1n }), /value/);
    assert.throws(() => checkRequest({ purpose: 'deploy' }), /init code/);
    checkRequest({ purpose: 'x'.repeat(50), to: TO, value: 0n });
    checkRequest({ purpose: 'deploy', data: '0x6000' });
  });
});

describe('intentOf', () => {
  test('stored forms: checksummed to, lowercase data, decimal wei, key or null', () => {
    const i = intentOf(
      { purpose: 'mint', to: TO.toLowerCase() as `0x${string}`, data: '0xABCDEF', value: 10n ** 18n, idempotencyKey: 'k1' },
      wallet,
    );
    assert.deepEqual(i, {
      purpose: 'mint',
      chain_id: 31337,
      from_address: wallet.address,
      to_address: TO,
      data: '0xabcdef',
      value: '1000000000000000000',
      idempotency_key: 'k1',
    });
    const creation = intentOf({ purpose: 'deploy', data: '0x60' }, wallet);
    assert.equal(creation.to_address, null);
    assert.equal(creation.value, '0');
    assert.equal(creation.idempotency_key, null);
  });
});

describe('sameWrite', () => {
  const base = intentOf({ purpose: 'mint', to: TO, data: '0xabcd', value: 5n, idempotencyKey: 'k' }, wallet);

  test('the same write whatever the casing, purpose or value notation', () => {
    assert.ok(sameWrite({ ...base, to_address: TO.toLowerCase(), from_address: wallet.address.toLowerCase() }, base));
    assert.ok(sameWrite({ ...base, value: '5' }, { ...base, purpose: 'other' }));
  });

  test('another chain, wallet, recipient, call or amount is a different write', () => {
    assert.ok(!sameWrite({ ...base, chain_id: 1 }, base));
    assert.ok(!sameWrite({ ...base, from_address: TO }, base));
    assert.ok(!sameWrite({ ...base, to_address: null }, base));
    assert.ok(!sameWrite({ ...base, data: '0xabce' }, base));
    assert.ok(!sameWrite({ ...base, data: null }, base));
    assert.ok(!sameWrite({ ...base, value: '6' }, base));
  });
});
