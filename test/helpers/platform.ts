/**
 * The common test platform: a fresh database and the real backend and admin proxy on ephemeral
 * ports (the fixture kit's setupDb + setupApps), and the JSON call helpers the tests share.
 */
import type { BackendOverrides } from '../../src/processes/backend.ts';
import { JWT_SECRET, SERVICE_KEY, sendJson, setupApps, setupDb, type Reply, type RequestOptions, type TestApps } from './kit.ts';

export { JWT_SECRET, SERVICE_KEY, type Reply };

export type TestPlatform = TestApps;

export async function startTestPlatform(
  env: Record<string, string | undefined> = {},
  extra: BackendOverrides = {},
  opts: { listen?: boolean } = {},
): Promise<TestPlatform> {
  const database = await setupDb();
  try {
    const apps = await setupApps({ database, env, backend: extra, listen: opts.listen });
    return {
      ...apps,
      async close() {
        await apps.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}

/** A small fetch wrapper over the network: JSON in, JSON out. */
export function call<T = any>(url: string, opts: RequestOptions = {}): Promise<Reply<T>> {
  return sendJson<T>(fetch, url, opts);
}

export const asService = (extra: Record<string, string> = {}) => ({ 'x-api-key': SERVICE_KEY, ...extra });

/** Minimal valid v2 generation data. */
export function sampleData() {
  return {
    version: 'v2',
    steps: [
      { id: 1, nodeName: 'image', nodePayload: { intent: 'a $color $animal', user_image: null, optional_ref_image: null, seed: null } },
    ],
    generations: { hashes: [], generations: 0, use_custom_hashes: false },
    variables: [
      {
        name: 'color',
        type: 'pick',
        value_type: 'strings',
        is_feature: true,
        feature_name: 'Color',
        is_selectable: true,
        is_user_customizable: false,
        required: false,
        value: [
          { value: 'red', display_name: 'Red', weight: 1 },
          { value: 'blue', display_name: 'Blue', weight: 3 },
        ],
      },
      {
        name: 'animal',
        is_feature: false,
        is_user_customizable: true,
        value: { values: ['cat', 'fox'], display_names: ['Cat', 'Fox'], weights: [1, 1] },
      },
    ],
  };
}
