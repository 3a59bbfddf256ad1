import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CollectionRow } from '../db/collections.ts';
import type { NewCustodialCollection } from '../db/custodial.ts';
import { AppError } from '../domain/errors.ts';
import { createCustodialService, type CustodialRequest } from './custodial.ts';

function fakes() {
  const created: NewCustodialCollection[] = [];
  const service = createCustodialService({
    create: async (c) => {
      created.push(c);
      return {
        collection: { id: 'c1', title: c.title, blockchain: c.blockchain } as CollectionRow,
        link: {
          id: 'l1',
          social_org: c.socialOrg,
          social_identifier: c.socialIdentifier,
          miniapp_user_id: c.miniappUserId,
          created_at: new Date(),
        },
      };
    },
  });
  return { service, created };
}

const request = (over: Partial<CustodialRequest['details']> = {}): CustodialRequest => ({
  details: {
    title: 'Frens',
    description: '',
    social_org: 'social_a',
    social_identifier: '4242',
    blockchain: 'tezos',
    price: 0.5,
    editions: 10,
    ...over,
  },
  variables: [{ name: 'hat', template_mapping: 'hat_style', options: ['beanie'], is_selectable: true, is_customizable: false }],
  jobType: 'miniapp_pfp',
  template: { prompt: 'a {{hat_style}}' },
});

test('one write holds the link and the whole collection: component, cover, source metadata, owner', async () => {
  const { service, created } = fakes();
  const r = await service.create(
    { kind: 'service', userId: 'u1' },
    request({ miniapp_user_id: 'm1', miniapp_cover_image: 'https://x/c.png', cast_hash: '0xabc' }),
  );
  assert.equal(created.length, 1);
  const c = created[0]!;
  assert.equal(c.blockchain, 'TEZOS');
  assert.equal(c.userId, 'u1');
  assert.equal(c.socialOrg, 'social_a');
  assert.equal(c.miniappUserId, 'm1');
  assert.deepEqual(c.component, {
    type: 'dynamic_json',
    job_type: 'miniapp_pfp',
    template: { prompt: 'a {{hat_style}}' },
    workflow: 'flexible_prompt',
  });
  assert.equal(c.coverImageUrl, 'https://x/c.png', 'the miniapp cover is the cover when none is given');
  assert.deepEqual(c.sourceMetadata, { cast_hash: '0xabc', miniapp_cover_image: 'https://x/c.png', miniapp_user_id: 'm1' });
  assert.deepEqual(
    r.variables.map((v) => v.name),
    ['hat'],
    'only the variables as sent, not the built-in image ones',
  );
  assert.equal((c.data as { steps: Array<{ nodePayload: { intent: string } }> }).steps[0]!.nodePayload.intent, 'a $hat');
});

test('a template mapping without its placeholder is a 400 and nothing is written', async () => {
  const { service, created } = fakes();
  const bad = { ...request(), template: { prompt: 'no placeholders' } };
  await assert.rejects(service.create({ kind: 'user', userId: 'u' }, bad), (e: unknown) => e instanceof AppError && e.kind === 'invalid');
  assert.equal(created.length, 0);
});

test('anonymous callers may not create one', async () => {
  const { service } = fakes();
  await assert.rejects(
    service.create({ kind: 'anonymous' }, request()),
    (e: unknown) => e instanceof AppError && e.kind === 'unauthorized',
  );
});
