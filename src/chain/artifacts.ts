/**
 * Compiled contract artifacts (contracts/out/<Name>.json, written by `npm run contracts:build`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

export interface Artifact {
  contractName: string;
  sourceName: string;
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}

/** Where artifacts are read from (contracts/out of this repository). */
export const ARTIFACTS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'contracts', 'out');

export const BUILD_COMMAND = 'npm run contracts:build';

const cache = new Map<string, Artifact>();

/**
 * Reads contracts/out/<name>.json. Throws when it is missing, naming the command that builds it.
 */
export function loadArtifact(name: string, dir: string = ARTIFACTS_DIR): Artifact {
  const key = `${dir}\0${name}`;
  const hit = cache.get(key);
  if (hit) return hit;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid contract name: ${JSON.stringify(name)}`);
  const path = join(dir, `${name}.json`);
  if (!existsSync(path)) {
    throw new Error(
      `Contract artifacts are missing: ${path} does not exist. Build them with \`${BUILD_COMMAND}\` (compiles contracts/ offline with solc-js).`,
    );
  }
  const artifact = JSON.parse(readFileSync(path, 'utf8')) as Artifact;
  if (!artifact.bytecode || !Array.isArray(artifact.abi)) {
    throw new Error(`Contract artifact ${path} is malformed; rebuild with \`${BUILD_COMMAND} -- --force\`.`);
  }
  cache.set(key, artifact);
  return artifact;
}

/** True when every named artifact exists. */
export function artifactsAvailable(names: readonly string[], dir: string = ARTIFACTS_DIR): boolean {
  return names.every((n) => existsSync(join(dir, `${n}.json`)));
}
