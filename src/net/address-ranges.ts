/**
 * Which IP addresses an outside fetch must never connect to: loopback, private, link-local,
 * shared (CGNAT), reserved, documentation, benchmarking and multicast ranges of IPv4 and IPv6,
 * and IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4), which
 * are judged by the address they carry. Pure.
 */
import { BlockList, isIP } from 'node:net';

const V4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'discard-only'],
  ['2001::', 23, 'IETF protocol assignments'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['fc00::', 7, 'unique local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

const v4Rules = new Map<string, BlockList>();
const v6Rules = new Map<string, BlockList>();
for (const [net, prefix, why] of V4) {
  const list = v4Rules.get(why) ?? new BlockList();
  list.addSubnet(net, prefix, 'ipv4');
  v4Rules.set(why, list);
}
for (const [net, prefix, why] of V6) {
  const list = v6Rules.get(why) ?? new BlockList();
  list.addSubnet(net, prefix, 'ipv6');
  v6Rules.set(why, list);
}

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tail allowed), or null. */
export function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    if (isIP(dotted[1]!) !== 4) return null;
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? Number.parseInt(g, 16) : Number.NaN)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if ((halves.length === 1 && fill !== 0) || fill < 0) return null;
  const groups = [...head, ...Array(fill).fill(0), ...tail];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) ? groups : null;
}

const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64 well-known, 6to4), if any. */
export function embeddedIpv4(groups: number[]): string | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const zeroTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeroTo(5) && g5 === 0xffff) return v4Of(g6, g7); // ::ffff:a.b.c.d
  if (zeroTo(6) && (g6 !== 0 || g7 > 1)) return v4Of(g6, g7); // ::a.b.c.d (deprecated compatible form)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return v4Of(g6, g7); // 64:ff9b::/96
  if (g0 === 0x2002) return v4Of(g1, g2); // 6to4 2002:AABB:CCDD::/48
  return null;
}

/** Why `address` is refused ("loopback", "private", …), or null when it is a public address. */
export function blockedReason(address: string): string | null {
  const kind = isIP(address.replace(/%.*$/, ''));
  if (kind === 4) {
    for (const [why, list] of v4Rules) if (list.check(address, 'ipv4')) return why;
    return null;
  }
  if (kind === 6) {
    const groups = ipv6Groups(address);
    if (!groups) return 'malformed IPv6 address';
    const v4 = embeddedIpv4(groups);
    if (v4) {
      const inner = blockedReason(v4);
      return inner ? `${inner} (IPv4 ${v4} inside IPv6)` : null;
    }
    const normal = groups.map((g) => g.toString(16)).join(':');
    for (const [why, list] of v6Rules) if (list.check(normal, 'ipv6')) return why;
    return null;
  }
  return 'not an IP address';
}
