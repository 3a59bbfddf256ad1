/**
 * POST /api/workflows/create-simple-collection (docs/api/content.md §4.5, docs/custodial.md): a
 * collection held for a social identity that has no account yet, generated from a JSON template.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { CustodialService } from '../../services/custodial.ts';
import { ok } from '../schemas/common.ts';
import { custodialBody, custodialResponse } from '../schemas/custodial.ts';

export interface CustodialRoutesOptions {
  custodial: CustodialService;
}

export const custodialRoutes: FastifyPluginAsync<CustodialRoutesOptions> = async (app, { custodial }) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/api/workflows/create-simple-collection',
    {
      schema: {
        tags: ['workflows'],
        operationId: 'createCustodialCollection',
        summary: 'Create a custodial template collection',
        description:
          "A collection held for a social identity (its social link created when absent), whose template's {{variables}} become prompt variables filled at generation time by the flexible_prompt workflow.",
        body: custodialBody,
        response: { 201: custodialResponse },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const {
        collection: c,
        link,
        variables,
        component,
      } = await custodial.create(req.caller, {
        details: b.collection_details,
        variables: b.variables,
        jobType: b.job_type,
        template: b.template_json,
      });
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
          variables: variables.map((v) => ({ ...v })),
          component: { type: 'dynamic_json' as const, job_type: component.job_type, template: component.template },
          cover_image_url: c.cover_image_url,
        }),
      );
    },
  );
};
