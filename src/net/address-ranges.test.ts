import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blockedReason, embeddedIpv4, ipv6Groups } from './address-ranges.ts';

test('every reserved IPv4 range is refused, public addresses pass', () => {
  const refused = [
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '100.127.255.254',
    '127.0.0.1',
    '127.255.255.255',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.88.99.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.19.255.255',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
  ];
  for (const a of refused) assert.notEqual(blockedReason(a), null, a);
  for (const a of ['8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.0', '172.32.0.1', '198.17.255.255', '198.20.0.0', '223.255.255.255'])
    assert.equal(blockedReason(a), null, a);
});

test('IPv6: loopback, unique local, link-local, multicast, documentation, discard are refused', () => {
  for (const a of [
    '::',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1%eth0',
    'fec0::1',
    'ff02::1',
    '2001:db8::1',
    '3fff::1',
    '100::1',
    '2001::1',
    '64:ff9b:1::1',
  ])
    assert.notEqual(blockedReason(a), null, a);
  for (const a of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) assert.equal(blockedReason(a), null, a);
});

test('IPv6 forms that carry an IPv4 address are judged by that address', () => {
  assert.match(blockedReason('::ffff:127.0.0.1') ?? '', /loopback/);
  assert.match(blockedReason('::ffff:7f00:1') ?? '', /loopback/);
  assert.match(blockedReason('64:ff9b::a9fe:a9fe') ?? '', /link-local/); // NAT64 of 169.254.169.254
  assert.match(blockedReason('64:ff9b::10.0.0.1') ?? '', /private/);
  assert.match(blockedReason('2002:c0a8:0101::1') ?? '', /private/); // 6to4 of 192.168.1.1
  assert.match(blockedReason('::10.0.0.1') ?? '', /private/);
  assert.equal(blockedReason('::ffff:8.8.8.8'), null);
  assert.equal(blockedReason('64:ff9b::808:808'), null);
});

test('IPv6 parsing: compressed forms, dotted tails, junk', () => {
  assert.deepEqual(ipv6Groups('::1'), [0, 0, 0, 0, 0, 0, 0, 1]);
  assert.deepEqual(ipv6Groups('1:2:3:4:5:6:7:8'), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(ipv6Groups('::ffff:1.2.3.4'), [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
  assert.equal(ipv6Groups('1::2::3'), null);
  assert.equal(ipv6Groups('12345::'), null);
  assert.equal(embeddedIpv4([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]), null);
  assert.equal(blockedReason('not-an-ip'), 'not an IP address');
});
