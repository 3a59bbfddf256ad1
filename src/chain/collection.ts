/**
 * Collection reads (docs/api/nft.md §2.6, §4.1.5), the admin actions (§4.1.4) and how a contract's
 * refusal becomes an API error (the custom error decoded with the ABI).
 */
import {
  decodeErrorResult,
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  getAddress,
  toFunctionSelector,
  type Abi,
  type AbiFunction,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { z } from 'zod';
import { collectionAbi } from '../../contracts/abi/index.ts';
import { ADDRESS_RE, checksumProblem, isAcceptedAddress } from '../domain/address.ts';
import { AppError } from '../domain/errors.ts';
import { MAX_CONTRACT_SUPPLY, MAX_URI_BYTES, utf8Bytes } from '../domain/contract-limits.ts';
import { TxFailedError, type TxSender } from './tx/api.ts';

export interface OnChainCollection {
  address: Address;
  name: string;
  symbol: string;
  owner: Address;
  minter: Address;
  totalSupply: string;
  maxSupply: string;
  mintActive: boolean;
  contractURI: string;
  /** The collection uuid found in contractURI, or null. */
  collectionId: string | null;
}

const UUID_IN_URI = /\/collections\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/|$)/i;
const ANY_UUID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/i;

/** `{base}/collections/<uuid>/metadata.json` → uuid; otherwise the first uuid in the URI, or null. */
export function collectionIdFromContractURI(uri: string): string | null {
  const m = UUID_IN_URI.exec(uri) ?? ANY_UUID.exec(uri);
  return m ? m[1]!.toLowerCase() : null;
}

export async function readCollection(client: PublicClient, address: Address): Promise<OnChainCollection> {
  const read = (functionName: string) =>
    client.readContract({ address, abi: collectionAbi, functionName: functionName as never }) as Promise<unknown>;
  const [name, symbol, owner, minter, totalSupply, maxSupply, mintActive, contractURI] = await Promise.all(
    ['name', 'symbol', 'owner', 'minter', 'totalSupply', 'maxSupply', 'mintActive', 'contractURI'].map(read),
  );
  return {
    address: getAddress(address),
    name: name as string,
    symbol: symbol as string,
    owner: getAddress(owner as string),
    minter: getAddress(minter as string),
    totalSupply: String(totalSupply),
    maxSupply: String(maxSupply),
    mintActive: mintActive as boolean,
    contractURI: contractURI as string,
    collectionId: collectionIdFromContractURI(contractURI as string),
  };
}

/** ERC-2981 royalty of the collection (one price of 10,000 units gives the basis points), or null when it has none. */
export async function readRoyalty(client: PublicClient, address: Address): Promise<{ receiver: Address; bps: number } | null> {
  const [receiver, amount] = (await client.readContract({
    address,
    abi: collectionAbi,
    functionName: 'royaltyInfo' as never,
    args: [1n, 10_000n] as never,
  })) as readonly [string, bigint];
  return BigInt(amount) === 0n && /^0x0{40}$/i.test(receiver) ? null : { receiver: getAddress(receiver), bps: Number(amount) };
}

// ------------------------------------------------------------------ admin actions (§4.1.4)

export const ADMIN_ACTIONS = {
  setMintActive: { type: 'boolean', fn: 'setMintActive' },
  setMinter: { type: 'address', fn: 'setMinter' },
  setMaxSupply: { type: 'unsigned integer as a decimal string', fn: 'setMaxSupply' },
  setBaseURI: { type: 'URL string', fn: 'setBaseURI' },
  setContractURI: { type: 'URL string', fn: 'setContractURI' },
  transferOwnership: { type: 'address', fn: 'transferOwnership' },
  /** Removes diamondCut for good (owner only; docs/contracts.md "Owning your collection"). */
  freezeUpgrades: { type: 'true (or no value): it takes no argument', fn: 'freezeUpgrades' },
  /** baseURI and contractURI can never change again (owner only; docs/contracts.md "Frozen metadata"). */
  freezeMetadata: { type: 'true (or no value): it takes no argument', fn: 'freezeMetadata' },
} as const;

export type AdminAction = keyof typeof ADMIN_ACTIONS;
export const ADMIN_ACTION_NAMES = Object.keys(ADMIN_ACTIONS) as [AdminAction, ...AdminAction[]];

/** A URI the contract takes: at most MAX_URI_BYTES of UTF-8 (docs/contracts.md "URI limits"). */
const urlValue = z
  .string()
  .refine((v) => utf8Bytes(v) <= MAX_URI_BYTES)
  .refine((v) => {
    try {
      const u = new URL(v);
      return ['http:', 'https:', 'ipfs:', 'ar:'].includes(u.protocol);
    } catch {
      return false;
    }
  });

const ZERO_ADDRESS = /^0x0{40}$/;

const VALUE_PARSERS: Record<AdminAction, z.ZodType> = {
  // JSON true/false only: the strings "true"/"false" are refused (docs/chain-operations.md).
  setMintActive: z.boolean(),
  setMinter: z.string().refine(isAcceptedAddress),
  transferOwnership: z.string().refine(isAcceptedAddress),
  setMaxSupply: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,77})$/)
    .refine((v) => /^[0-9]+$/.test(v) && BigInt(v) <= BigInt(MAX_CONTRACT_SUPPLY)),
  setBaseURI: urlValue,
  setContractURI: urlValue,
  // No argument; `true` (or nothing) confirms the intent.
  freezeUpgrades: z
    .literal(true)
    .nullish()
    .transform(() => true),
  freezeMetadata: z
    .literal(true)
    .nullish()
    .transform(() => true),
};

/** Checks `value` against the action's type; 400 naming `value` and the expected type. */
export function parseAdminValue(action: AdminAction, value: unknown): boolean | string {
  // The contract takes the zero address, and then nobody can mint (setMinter) or administer it
  // again (transferOwnership): one click in the console would brick the collection for good.
  if ((action === 'setMinter' || action === 'transferOwnership') && typeof value === 'string' && ZERO_ADDRESS.test(value)) {
    throw new AppError(
      'invalid',
      `body.value: ${action} to the zero address is refused: nobody could ${action === 'setMinter' ? 'mint' : 'administer the contract'} again`,
    );
  }
  const mistyped =
    ADMIN_ACTIONS[action].type === 'address' && typeof value === 'string' && ADDRESS_RE.test(value) && checksumProblem(value);
  if (mistyped) throw new AppError('invalid', `body.value: ${mistyped}`);
  const r = VALUE_PARSERS[action].safeParse(value);
  if (!r.success) {
    const expected = ADMIN_ACTIONS[action].type;
    const hint =
      action === 'setMintActive'
        ? ' (JSON true or false)'
        : action === 'setMaxSupply'
          ? ` (for example "1000"; at most ${MAX_CONTRACT_SUPPLY}, 2^40 - 2)`
          : ADMIN_ACTIONS[action].type === 'address'
            ? ' (0x followed by 40 hex digits)'
            : action === 'freezeUpgrades' || action === 'freezeMetadata'
              ? ''
              : ` (http, https, ipfs or ar; at most ${MAX_URI_BYTES.toLocaleString('en-US')} bytes of UTF-8)`;
    throw new AppError('invalid', `body.value: ${action} expects a ${expected}${hint}, got ${JSON.stringify(value)?.slice(0, 100)}`);
  }
  return r.data as boolean | string;
}

/** The call's arguments: none for the freezes, else the one value. */
function adminArgs(action: AdminAction, value: boolean | string): unknown[] {
  return action === 'freezeUpgrades' || action === 'freezeMetadata' ? [] : [adminArg(action, value)];
}

function adminArg(action: AdminAction, value: boolean | string): unknown {
  if (action === 'setMaxSupply') return BigInt(value as string);
  if (action === 'setMinter' || action === 'transferOwnership') return getAddress(value as string);
  return value;
}

export function encodeAdminCall(action: AdminAction, value: boolean | string): Hex {
  const fn = ADMIN_ACTIONS[action].fn;
  return encodeFunctionData({ abi: collectionAbi, functionName: fn as never, args: adminArgs(action, value) as never });
}

export async function runAdminAction(opts: {
  client: PublicClient;
  sender: TxSender;
  address: Address;
  action: AdminAction;
  value: boolean | string;
}): Promise<{ txHash: Hex; blockNumber: string }> {
  const { client, sender, address, action, value } = opts;
  const data = encodeAdminCall(action, value);
  // Simulate first: a refusal (not the owner, supply below minted...) is decoded with the ABI.
  await simulateOrThrow(client, {
    address,
    abi: collectionAbi,
    functionName: ADMIN_ACTIONS[action].fn,
    args: adminArgs(action, value),
    account: sender.address,
  });
  let r;
  try {
    r = await sender.send({ purpose: `admin:${action}`, to: address, data });
  } catch (err) {
    throw revertError(err, action) ?? err;
  }
  if (r.status !== 'mined') throw new AppError('conflict', `${action} reverted on chain (tx ${r.hash})`, { txHash: r.hash });
  return { txHash: r.hash, blockNumber: r.receipt.blockNumber.toString() };
}

// ------------------------------------------------------------------ reverts

function jsonSafe(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v ?? null, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)));
}

/** A contract refusal as a 409 with the decoded custom error; undefined when `err` is not a revert. */
export function revertError(err: unknown, what: string): AppError | undefined {
  if (err instanceof BaseError) {
    const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    if (reverted) {
      const name = reverted.data?.errorName;
      const args = reverted.data?.args ? (jsonSafe(reverted.data.args) as unknown[]) : [];
      const reason = name ? `${name}(${args.map((a) => String(a)).join(', ')})` : (reverted.reason ?? 'execution reverted');
      return new AppError('conflict', `${what} refused by the contract: ${reason}`, {
        revert: { name: name ?? null, args, reason: reverted.reason ?? null },
      });
    }
  }
  if (err instanceof TxFailedError && /revert/i.test(err.message)) {
    const name = revertNameIn(err.message);
    return new AppError('conflict', `${what} refused by the contract: ${name ? `${name} ` : ''}${err.message}`, {
      revert: { name, args: [], reason: null },
    });
  }
  return undefined;
}

/** The collection ABI's custom errors by selector (0x + 8 hex digits, lowercase). */
const ERROR_BY_SELECTOR = new Map(
  (collectionAbi as Abi)
    .filter((item) => item.type === 'error')
    .map((e) => [toFunctionSelector({ ...e, type: 'function', outputs: [], stateMutability: 'nonpayable' } as AbiFunction), e.name]),
);

/**
 * The custom error named by revert data inside an error message (a node often reports only the
 * raw data, e.g. `execution reverted: 0x914edb0f`), decoded with the collection ABI. Anvil words
 * an error with arguments as `custom error 0xea058246: <the arguments' raw bytes>`: the hex is
 * then only the selector, which names the error without its arguments.
 */
export function revertNameIn(message: string): string | null {
  for (const [hex] of message.matchAll(/0x[0-9a-fA-F]{8,}/g)) {
    try {
      return decodeErrorResult({ abi: collectionAbi, data: hex as Hex }).errorName;
    } catch {
      // not revert data of ours: try the next hex string
    }
  }
  const selector = /custom error (0x[0-9a-fA-F]{8})/.exec(message)?.[1]?.toLowerCase() as Hex | undefined;
  return (selector && ERROR_BY_SELECTOR.get(selector)) ?? null;
}

/** eth_call the write first; a revert becomes a 409 naming the decoded error. */
export async function simulateOrThrow(
  client: PublicClient,
  call: { address: Address; abi: Abi; functionName: string; args: readonly unknown[]; account: Address },
): Promise<void> {
  try {
    await client.simulateContract(call as never);
  } catch (err) {
    const mapped = revertError(err, call.functionName);
    if (mapped) throw mapped;
    throw new AppError('upstream', `simulating ${call.functionName} failed: ${(err as Error).message.split('\n')[0]}`);
  }
}
