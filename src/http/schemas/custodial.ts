/** Request and response schemas of custodial template collections (docs/api/content.md §4.5). */
import { z } from 'zod';
import { templateToGenerationData } from '../../domain/custodial-template.ts';
import { normalizeGenerationData, type Variable } from '../../domain/generation-data.ts';
import { socialOrg, uuid } from './common.ts';
import { envelope } from './envelope.ts';
import { EXAMPLE_ID, withExample } from './examples.ts';

const numberLike = (what: string) =>
  z.union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, `expected a ${what} as a number or numeric string`)
      .transform(Number),
  ]);

/** A profile-picture collection for one social account: two variables filling the template's placeholders. */
const TEMPLATE = { prompt: 'a portrait of a fox wearing a {{hat_style}}, feeling {{mood}}', size: '1024x1024' };
const TEMPLATE_VARIABLES = [
  { name: 'hat', template_mapping: 'hat_style', options: ['beanie', 'crown of ferns'], is_selectable: true, is_customizable: false },
  { name: 'mood', options: ['curious'], is_selectable: false, is_customizable: true },
];

export const custodialBody = withExample(
  z.object({
    collection_details: z.object({
      title: z.string().trim().min(1).max(200),
      description: z.string().max(10_000).default(''),
      social_org: socialOrg,
      social_identifier: z.string().trim().min(1).max(255),
      blockchain: z.enum(['tezos', 'base']).default('tezos'),
      price: numberLike('price').pipe(z.number().nonnegative().finite()).default(0),
      editions: numberLike('count').pipe(z.number().int().min(1).max(1_000_000)).default(1),
      cover_image_url: z.string().url().optional(),
      miniapp_user_id: uuid.optional(),
      miniapp_cover_image: z.string().url().optional(),
      cast_hash: z.string().max(200).optional(),
      project_id: uuid.optional(),
    }),
    variables: z
      .array(
        z.object({
          name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'variable names are letters, digits and underscores'),
          template_mapping: z.string().min(1).max(100).optional(),
          options: z.array(z.string().min(1).max(2048)).max(100).default([]),
          is_selectable: z.boolean().default(false),
          is_customizable: z.boolean().default(false),
        }),
      )
      .max(50)
      .default([]),
    job_type: z.string().trim().min(1).max(50),
    template_json: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown()), z.string().min(1)]),
  }),
  {
    collection_details: {
      title: 'Fox PFPs for @northlight',
      description: 'Profile pictures for one account.',
      social_org: 'social_a',
      social_identifier: '20431',
      blockchain: 'tezos',
      price: 0.5,
      editions: 10,
    },
    variables: TEMPLATE_VARIABLES,
    job_type: 'miniapp_pfp',
    template_json: TEMPLATE,
  },
);

const CUSTODIAL_VARIABLES = normalizeGenerationData(templateToGenerationData(TEMPLATE, TEMPLATE_VARIABLES)).variables as Array<
  Variable & Record<string, unknown>
>;

export const custodialResponse = envelope(
  withExample(
    z.object({
      id: z.string(),
      title: z.string(),
      description: z.string(),
      blockchain: z.string(),
      price: z.number(),
      editions: z.number().int(),
      status: z.string(),
      is_custodial: z.boolean(),
      custodied_for: z.string().nullable(),
      social_link: z.object({
        id: z.string(),
        social_org: z.string(),
        social_identifier: z.string(),
        miniapp_user_id: z.string().nullable(),
      }),
      variables: z.array(z.looseObject({ name: z.string() })).describe('prompt-editor (v2) variables'),
      component: z.object({ type: z.literal('dynamic_json'), job_type: z.string(), template: z.unknown() }),
      cover_image_url: z.string().nullable(),
    }),
    {
      id: 'a41c7e58-2f93-4b6d-8e10-9c5d3b7f2a64',
      title: 'Fox PFPs for @northlight',
      description: 'Profile pictures for one account.',
      blockchain: 'tezos',
      price: 0.5,
      editions: 10,
      status: 'draft',
      is_custodial: true,
      custodied_for: EXAMPLE_ID.socialLink,
      social_link: { id: EXAMPLE_ID.socialLink, social_org: 'social_a', social_identifier: '20431', miniapp_user_id: null },
      variables: CUSTODIAL_VARIABLES,
      component: { type: 'dynamic_json', job_type: 'miniapp_pfp', template: TEMPLATE },
      cover_image_url: null,
    },
  ),
);
