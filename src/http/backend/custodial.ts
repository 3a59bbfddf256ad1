/**
 * POST /api/workflows/create-simple-collection (content-service.md §4.5): a collection held for
 * a social identity that has no account yet, generated from a JSON template.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { createCollection } from '../../db/collections.ts';
import { presentCollection } from '../present/collections.ts';
import { collections, socialLinks } from '../../db/schema/index.ts';
import { upsertSocialLink } from '../../db/social-links.ts';
import { templateToGenerationData } from '../../domain/custodial-template.ts';
import { normalizeGenerationData } from '../../domain/generation-data.ts';
import { ok, socialOrg, uuid } from '../schemas/common.ts';
import type { BackendDeps } from './app.ts';

const numberLike = (what: string) =>
  z.union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, `expected a ${what} as a number or numeric string`)
      .transform(Number),
  ]);

const body = z.object({
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
});

export function custodialRoutes(app: FastifyInstance, deps: BackendDeps) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps.database;

  r.post('/api/workflows/create-simple-collection', { schema: { tags: ['workflows'], body } }, async (req, reply) => {
    const d = req.body.collection_details;
    const data = normalizeGenerationData(templateToGenerationData(req.body.template_json, req.body.variables));
    const link = await upsertSocialLink(db, d.social_org, d.social_identifier, d.miniapp_user_id);
    if (d.miniapp_user_id && !link.miniapp_user_id) {
      // The identity got an account since the link was made: remember it.
      await db.update(socialLinks).set({ miniapp_user_id: d.miniapp_user_id }).where(eq(socialLinks.id, link.id));
      link.miniapp_user_id = d.miniapp_user_id;
    }
    const component = { type: 'dynamic_json', job_type: req.body.job_type, template: req.body.template_json, workflow: 'flexible_prompt' };
    const created = await createCollection(db, {
      title: d.title,
      description: d.description,
      editions: d.editions,
      price: d.price,
      blockchain: d.blockchain.toUpperCase(),
      data,
      project_id: d.project_id ?? null,
      social_org: d.social_org,
      social_identifier: d.social_identifier,
      userId: req.auth.userId,
    });
    const [row] = await db
      .update(collections)
      .set({
        component,
        cover_image_url: d.cover_image_url ?? d.miniapp_cover_image ?? null,
        source_metadata: {
          ...(d.cast_hash ? { cast_hash: d.cast_hash } : {}),
          ...(d.miniapp_cover_image ? { miniapp_cover_image: d.miniapp_cover_image } : {}),
          ...(d.miniapp_user_id ? { miniapp_user_id: d.miniapp_user_id } : {}),
        },
        updated_at: sql`now()`,
      })
      .where(eq(collections.id, created.id))
      .returning();
    const c = presentCollection(row!);
    return reply.code(201).send(
      ok({
        id: c.id,
        title: c.title,
        description: c.description,
        blockchain: c.blockchain.toLowerCase(),
        price: c.price,
        editions: c.editions,
        status: c.status,
        is_custodial: c.is_custodial,
        custodied_for: c.custodied_for,
        social_link: {
          id: link.id,
          social_org: link.social_org,
          social_identifier: link.social_identifier,
          miniapp_user_id: link.miniapp_user_id,
        },
        variables: data.variables.filter((v) => req.body.variables.some((b) => b.name === v.name)),
        component: { type: component.type, job_type: component.job_type, template: component.template },
        cover_image_url: c.cover_image_url,
      }),
    );
  });
}
