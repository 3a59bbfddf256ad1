/**
 * The configured pin target (IPFS_PIN_TARGET; docs/permanence.md "Pinning"), or none. The
 * settings are checked by the configuration module at start; this only builds the target.
 */
import { isIP } from 'node:net';
import type { Config } from '../../config.ts';
import { KuboTarget } from './kubo.ts';
import { PsaTarget } from './psa.ts';
import { S3CarTarget } from './s3car.ts';
import type { PinTarget } from './types.ts';

export { checkPinned, samplePaths } from './check.ts';
export { PinTargetError, type PinTarget } from './types.ts';

/**
 * The multiaddr of an HTTP(S) URL's host and port (`/ip4/…/tcp/…/http`, `/dns/…/tcp/443/https`):
 * this backend's gateway as a pin's origin.
 */
export function httpMultiaddr(url: string): string {
  const u = new URL(url);
  const scheme = u.protocol === 'https:' ? 'https' : 'http';
  const port = u.port || (scheme === 'https' ? '443' : '80');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const proto = isIP(host) === 4 ? 'ip4' : isIP(host) === 6 ? 'ip6' : 'dns';
  return `/${proto}/${host}/tcp/${port}/${scheme}`;
}

/** What the pin target reads from the configuration: IPFS_PIN_TARGET and the chosen target's settings. */
export type PinTargetOptions = Pick<
  Config,
  | 'IPFS_PIN_TARGET'
  | 'IPFS_KUBO_RPC_URL'
  | 'IPFS_KUBO_RPC_AUTH'
  | 'IPFS_PSA_ENDPOINT'
  | 'IPFS_PSA_TOKEN'
  | 'IPFS_PSA_ORIGINS'
  | 'IPFS_PSA_POLL_MS'
  | 'IPFS_PIN_GATEWAY_URL'
  | 'IPFS_PIN_TIMEOUT_MS'
  | 'IPFS_S3CAR_BUCKET'
  | 'IPFS_S3CAR_REGION'
  | 'IPFS_S3CAR_ENDPOINT'
  | 'IPFS_S3CAR_ACCESS_KEY_ID'
  | 'IPFS_S3CAR_SECRET_ACCESS_KEY'
  | 'IPFS_S3CAR_PREFIX'
>;

/** `publicBaseUrl`: this backend's public URL (the default origin of a pinning-service request). */
export function createPinTarget(config: PinTargetOptions, publicBaseUrl: string): PinTarget | undefined {
  switch (config.IPFS_PIN_TARGET) {
    case 'kubo':
      return new KuboTarget({
        url: config.IPFS_KUBO_RPC_URL!,
        ...(config.IPFS_KUBO_RPC_AUTH ? { authorization: config.IPFS_KUBO_RPC_AUTH } : {}),
      });
    case 'psa':
      return new PsaTarget({
        endpoint: config.IPFS_PSA_ENDPOINT!,
        token: config.IPFS_PSA_TOKEN!,
        gatewayUrl: config.IPFS_PIN_GATEWAY_URL!,
        origins: config.IPFS_PSA_ORIGINS.length > 0 ? config.IPFS_PSA_ORIGINS : [httpMultiaddr(publicBaseUrl)],
        pollMs: config.IPFS_PSA_POLL_MS,
        timeoutMs: config.IPFS_PIN_TIMEOUT_MS,
      });
    case 's3car':
      return new S3CarTarget({
        bucket: config.IPFS_S3CAR_BUCKET!,
        region: config.IPFS_S3CAR_REGION,
        ...(config.IPFS_S3CAR_ENDPOINT ? { endpoint: config.IPFS_S3CAR_ENDPOINT } : {}),
        ...(config.IPFS_S3CAR_ACCESS_KEY_ID ? { accessKeyId: config.IPFS_S3CAR_ACCESS_KEY_ID } : {}),
        ...(config.IPFS_S3CAR_SECRET_ACCESS_KEY ? { secretAccessKey: config.IPFS_S3CAR_SECRET_ACCESS_KEY } : {}),
        prefix: config.IPFS_S3CAR_PREFIX,
        gatewayUrl: config.IPFS_PIN_GATEWAY_URL!,
      });
    default:
      return undefined;
  }
}
