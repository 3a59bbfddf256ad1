/**
 * Deploys the platform contracts (8 facets, CollectionInit, DiamondFactory) to the chain behind an
 * RPC URL and writes deployments/<chainId>.json.
 *
 *   npm run contracts:deploy -- --rpc-url http://127.0.0.1:8545 [--private-key 0x...] [--chain-id N] [--out-dir deployments]
 *
 * The key comes from --private-key or the environment variable NFT_DEPLOYER_PRIVATE_KEY (preferred:
 * command lines are visible to other users); it is never printed. --rpc-url defaults to NFT_RPC_URL.
 */
import { parseArgs } from 'node:util';
import type { Hex } from 'viem';
import { deployPlatform, writeDeploymentRecord } from '../src/chain/deploy-platform.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'rpc-url': { type: 'string' },
      'private-key': { type: 'string' },
      'chain-id': { type: 'string' },
      'out-dir': { type: 'string', default: 'deployments' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'usage: tsx scripts/deploy-contracts.ts --rpc-url URL [--private-key 0x..|env NFT_DEPLOYER_PRIVATE_KEY] [--chain-id N] [--out-dir deployments]\n',
    );
    return;
  }
  const rpcUrl = values['rpc-url'] ?? process.env.NFT_RPC_URL;
  if (!rpcUrl) throw new Error('--rpc-url is required (or set NFT_RPC_URL)');
  const privateKey = (values['private-key'] ?? process.env.NFT_DEPLOYER_PRIVATE_KEY) as Hex | undefined;
  if (!privateKey) throw new Error('--private-key or NFT_DEPLOYER_PRIVATE_KEY is required');
  if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) throw new Error('the private key must be 0x followed by 64 hex digits');
  let chainId: number | undefined;
  if (values['chain-id'] !== undefined) {
    chainId = Number(values['chain-id']);
    if (!Number.isInteger(chainId) || chainId <= 0) throw new Error('--chain-id must be a positive integer');
  }
  const record = await deployPlatform({
    rpcUrl,
    privateKey,
    chainId,
    onDeployed: (name, address) => process.stdout.write(`  ${name.padEnd(20)} ${address}\n`),
  });
  const path = writeDeploymentRecord(record, values['out-dir']);
  process.stdout.write(`deployed to chain ${record.chainId} by ${record.deployer}; record written to ${path}\n`);
}

main().catch((err: unknown) => {
  const msg = err instanceof Error ? err.message : String(err);
  // never echo the key, even if a library put it in a message
  let safe = msg;
  const argIndex = process.argv.indexOf('--private-key');
  for (const key of [process.env.NFT_DEPLOYER_PRIVATE_KEY, argIndex >= 0 ? process.argv[argIndex + 1] : undefined]) {
    if (key) safe = safe.split(key).join('<redacted>').split(key.replace(/^0x/, '')).join('<redacted>');
  }
  process.stderr.write(`deploy failed: ${safe}\n`);
  process.exit(1);
});
