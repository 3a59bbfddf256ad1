/**
 * A place outside the platform that keeps an exported bundle (docs/permanence.md "Pinning"): it
 * takes the CAR, and answers files of the pinned DAG back so the platform can check the copy.
 * One file per target (Kubo RPC, IPFS Pinning Service API, S3 buckets that import CARs); an
 * Arweave target would be one more file behind the same interface.
 */
export interface PinTarget {
  /** kubo | psa | s3car */
  readonly kind: string;
  /** Kind and host, shown in an export's `pin_target` (never a credential). */
  readonly label: string;
  /**
   * Hands the CAR (one root, `rootCid`) to the target and resolves once the target reports the
   * root pinned; throws with the target's reason otherwise. `name` is a human label for the pin.
   */
  pin(car: Uint8Array, rootCid: string, opts: { name: string; signal?: AbortSignal }): Promise<void>;
  /** The bytes of the file at `<rootCid>/<path>`, read from the target (not from our copy). */
  fetchPath(rootCid: string, path: string, opts?: { signal?: AbortSignal }): Promise<Uint8Array>;
  /** The raw bytes of one block (the root directory's node), read from the target. */
  fetchBlock(cid: string, opts?: { signal?: AbortSignal }): Promise<Uint8Array>;
  close?(): void;
}

/** A target that refused or failed; the message is safe to store and show (no credentials). */
export class PinTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PinTargetError';
  }
}

/** `host[:port]` of a URL, for labels and messages. */
export const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return 'unknown host';
  }
};
