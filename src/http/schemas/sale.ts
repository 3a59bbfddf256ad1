/**
 * PUT/GET /nft/collections/:id/sale (docs/minting.md "On-chain sale"): every field validated, a
 * 400 names the field (`body.price`, `body.payouts.1.bps`, ...).
 */
import { z } from 'zod';
import { MAX_PAYOUTS, MAX_PER_WALLET, MAX_PRICE, MAX_TIME } from '../../domain/sale-config.ts';
import { ADDRESS_RE, checksumProblem } from '../../domain/address.ts';
import { address } from './common.ts';
import { EXAMPLE_CHAIN, withExample } from './examples.ts';

const ZERO = /^0x0{40}$/i;
const CURRENCY_RULE = 'expected "native" (the chain\'s currency) or the 0x-prefixed address of one ERC-20 token';
/** The sale contract's bound (SaleFacet refuses a larger price: it keeps it in 128 bits). */
const PRICE_RULE =
  "expected a whole number of the currency's smallest unit (wei for native) as a decimal string: digits only, no sign, point or leading zero";
const PRICE_MAX = `at most 2^128-1 = ${MAX_PRICE} (the sale contract keeps the price in 128 bits)`;
const isoTime = z.iso.datetime({ offset: true, message: 'expected an ISO 8601 date-time' }).refine((v) => {
  const t = Date.parse(v);
  // refinements run after a failed format check too: only judge a parsable time
  return Number.isNaN(t) || (t >= 0 && BigInt(Math.floor(t / 1000)) <= MAX_TIME);
}, 'out of range (1970 to the year 36812)');

const saleSettingsObject = z
  .object({
    currency: z
      .union(
        [
          z.literal('native'),
          z
            .string()
            .regex(ADDRESS_RE, CURRENCY_RULE)
            .superRefine((value, ctx) => {
              const problem = ADDRESS_RE.test(value) ? checksumProblem(value) : null;
              if (problem) ctx.addIssue({ code: 'custom', message: problem });
            })
            .refine((a) => !ZERO.test(a), 'the zero address is not a token; use "native"'),
        ],
        { error: CURRENCY_RULE },
      )
      .describe('"native" (the chain\'s currency) or the address of one ERC-20 token'),
    price: z
      .string({ error: `${PRICE_RULE} (a JSON string, so that large prices stay exact)` })
      .regex(/^(0|[1-9][0-9]*)$/, PRICE_RULE)
      // the length first: a huge string is not worth a BigInt
      .refine((v) => !/^[0-9]+$/.test(v) || (v.length <= 39 && BigInt(v) <= MAX_PRICE), PRICE_MAX)
      .describe(`per token, in the currency's smallest unit (wei for native): a decimal string of digits, at most 2^128-1`),
    start: isoTime.nullable().describe('purchases open at (inclusive); null: at once'),
    end: isoTime.nullable().describe('purchases close at (exclusive); null: never'),
    max_per_wallet: z.number().int().min(1).max(MAX_PER_WALLET).nullable().describe('tokens per recipient wallet; null: no limit'),
    merkle_root: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'expected a 0x-prefixed 32-byte hex root')
      .nullable()
      .describe('root of the allowlist of recipient wallets (docs/minting.md "Merkle allowlists"); null: anyone'),
    payouts: z
      .array(
        z.object({
          address: address.refine((a) => !ZERO.test(a), 'the zero address cannot be paid'),
          bps: z.number().int().min(1).max(10_000),
        }),
      )
      .max(MAX_PAYOUTS)
      .describe('recipients and basis points summing to 10000; empty only for a free sale'),
  })
  .strict();

export const SALE_EXAMPLE = {
  currency: 'native',
  price: '10000000000000000',
  start: '2025-06-05T16:00:00.000Z',
  end: null,
  max_per_wallet: 5,
  merkle_root: null,
  payouts: [
    { address: EXAMPLE_CHAIN.creatorWallet, bps: 7000 },
    { address: EXAMPLE_CHAIN.collector, bps: 3000 },
  ],
};

export const saleSettingsBody = withExample(saleSettingsObject, SALE_EXAMPLE as z.input<typeof saleSettingsObject>).superRefine(
  (b, ctx) => {
    if (!Array.isArray(b.payouts) || typeof b.price !== 'string') return; // reported by the fields
    if (b.start && b.end && Date.parse(b.end) <= Date.parse(b.start)) {
      ctx.addIssue({ code: 'custom', path: ['end'], message: 'must be after start' });
    }
    const sum = b.payouts.reduce((s, p) => s + (Number.isInteger(p?.bps) ? p.bps : 0), 0);
    if (b.payouts.length > 0 && sum !== 10_000) {
      ctx.addIssue({ code: 'custom', path: ['payouts'], message: `bps must sum to 10000 (got ${sum})` });
    }
    if (b.payouts.length === 0 && b.price !== '0') {
      ctx.addIssue({ code: 'custom', path: ['payouts'], message: 'a paid sale needs at least one payout recipient' });
    }
    const seen = new Set<string>();
    b.payouts.forEach((p, i) => {
      if (typeof p?.address !== 'string') return;
      if (seen.has(p.address.toLowerCase())) ctx.addIssue({ code: 'custom', path: ['payouts', i, 'address'], message: 'listed twice' });
      seen.add(p.address.toLowerCase());
    });
  },
);

export const saleState = withExample(
  z.object({
    collection_address: z.string(),
    chain_id: z.number(),
    configured: z.boolean(),
    paused: z.boolean(),
    currency: z.string(),
    price: z.string(),
    start: z.string().nullable(),
    end: z.string().nullable(),
    max_per_wallet: z.number().nullable(),
    merkle_root: z.string().nullable(),
    payouts: z.array(z.object({ address: z.string(), bps: z.number() })),
    tx_hash: z.string().optional(),
  }),
  {
    collection_address: EXAMPLE_CHAIN.collection,
    chain_id: EXAMPLE_CHAIN.chainId,
    configured: true,
    paused: false,
    ...SALE_EXAMPLE,
    tx_hash: EXAMPLE_CHAIN.mintTx,
  },
);
