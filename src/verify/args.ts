/** `atelier verify` arguments: `--rpc <url> [--from-block <n>] [--gateway <url>] <chainId>:<collection address>`. */
import { getAddress, isAddress, type Address } from 'viem';

export interface VerifyArgs {
  rpc: string;
  chainId: number;
  address: Address;
  /** Where to start looking for the collection's mints (its deployment block); 0 by default. */
  fromBlock: bigint;
  /** The IPFS gateway ipfs:// URLs are fetched through (`<gateway>/ipfs/<cid>/<path>`); DEFAULT_GATEWAY by default. */
  gateway: string;
}

/** A public gateway, for a collection frozen at a bundle (docs/permanence.md "Freezing"). */
export const DEFAULT_GATEWAY = 'https://ipfs.io';

/** A usage mistake: the command prints it with the usage and exits 2. */
export class VerifyArgsError extends Error {
  override name = 'VerifyArgsError';
}

export function parseVerifyArgs(argv: readonly string[]): VerifyArgs {
  let rpc: string | undefined;
  let fromBlock = 0n;
  let gateway = DEFAULT_GATEWAY;
  const targets: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (name: string) => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined || v === '') throw new VerifyArgsError(`${name} needs a value`);
      return v;
    };
    if (a === '--rpc' || a.startsWith('--rpc=')) rpc = value('--rpc');
    else if (a === '--from-block' || a.startsWith('--from-block=')) {
      const v = value('--from-block');
      if (!/^\d+$/.test(v)) throw new VerifyArgsError(`--from-block must be a block number, not "${v}"`);
      fromBlock = BigInt(v);
    } else if (a === '--gateway' || a.startsWith('--gateway=')) {
      gateway = value('--gateway');
      if (!/^https?:\/\/[^/]/i.test(gateway)) throw new VerifyArgsError(`--gateway must be an http(s) URL, not "${gateway}"`);
      gateway = gateway.replace(/\/+$/, '');
    } else if (a.startsWith('-')) throw new VerifyArgsError(`unknown option ${a}`);
    else targets.push(a);
  }
  if (!rpc) throw new VerifyArgsError('--rpc <url> is required (a JSON-RPC endpoint of the collection’s chain)');
  if (!/^https?:\/\//i.test(rpc)) throw new VerifyArgsError(`--rpc must be an http(s) URL, not "${rpc}"`);
  if (targets.length !== 1) throw new VerifyArgsError('give exactly one collection as <chainId>:<address>');
  const m = /^(\d+):(0x[0-9a-fA-F]{40})$/.exec(targets[0]!);
  if (!m || !isAddress(m[2]!, { strict: false })) {
    throw new VerifyArgsError(`"${targets[0]}" is not <chainId>:<address> (e.g. 8453:0x5FbDB2315678afecb367f032d93F642f64180aa3)`);
  }
  const chainId = Number(m[1]);
  if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new VerifyArgsError(`chain id ${m[1]} is not a positive integer`);
  return { rpc, chainId, address: getAddress(m[2]!), fromBlock, gateway };
}
