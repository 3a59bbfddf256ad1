import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadArtifact, artifactsAvailable } from '../../src/chain/artifacts.ts';
import { diamondFactoryAbi } from '../../contracts/abi/index.ts';

test('loadArtifact reads a built artifact whose ABI matches the committed typed ABI', () => {
  const a = loadArtifact('DiamondFactory');
  assert.equal(a.contractName, 'DiamondFactory');
  assert.match(a.bytecode, /^0x[0-9a-f]+$/);
  assert.deepEqual(a.abi, diamondFactoryAbi);
  assert.ok(artifactsAvailable(['DiamondFactory', 'ERC721Facet', 'RefOZ721', 'RefERC721A']));
});

test('a missing artifact throws an error naming the build command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'atelier-artifacts-'));
  try {
    assert.throws(
      () => loadArtifact('DiamondFactory', dir),
      (err: Error) => {
        assert.match(err.message, /artifacts are missing/);
        assert.match(err.message, /npm run contracts:build/);
        return true;
      },
    );
    assert.throws(() => loadArtifact('../etc/passwd'), /invalid contract name/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
