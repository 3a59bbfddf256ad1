import type { CollectionRow } from '../db/collections.ts';
import type { NewCustodialCollection } from '../db/custodial.ts';
import type { SocialLink } from '../db/social-links.ts';
import { templateToGenerationData, type TemplateVariable } from '../domain/custodial-template.ts';
import { normalizeGenerationData, type GenerationData } from '../domain/generation-data.ts';
import { authorize, ownerFor, type Caller } from '../domain/policy.ts';

export interface CustodialPorts {
  create(c: NewCustodialCollection): Promise<{ collection: CollectionRow; link: SocialLink }>;
}

export interface CustodialRequest {
  details: {
    title: string;
    description: string;
    social_org: string;
    social_identifier: string;
    blockchain: 'tezos' | 'base';
    price: number;
    editions: number;
    cover_image_url?: string;
    miniapp_user_id?: string;
    miniapp_cover_image?: string;
    cast_hash?: string;
    project_id?: string;
  };
  variables: TemplateVariable[];
  jobType: string;
  template: unknown;
}

/** The custodial collection's workflow: template variables are replaced at generation time. */
export const CUSTODIAL_WORKFLOW = 'flexible_prompt';

export function createCustodialService(ports: CustodialPorts) {
  return {
    async create(caller: Caller, req: CustodialRequest) {
      authorize(caller, 'custodial.create');
      const d = req.details;
      const data: GenerationData = normalizeGenerationData(templateToGenerationData(req.template, req.variables));
      const component = { type: 'dynamic_json', job_type: req.jobType, template: req.template, workflow: CUSTODIAL_WORKFLOW };
      const { collection, link } = await ports.create({
        title: d.title,
        description: d.description,
        editions: d.editions,
        price: d.price,
        // Stored uppercase like every other collection; answered as sent.
        blockchain: d.blockchain.toUpperCase(),
        data,
        projectId: d.project_id ?? null,
        userId: ownerFor(caller),
        socialOrg: d.social_org,
        socialIdentifier: d.social_identifier,
        miniappUserId: d.miniapp_user_id ?? null,
        component,
        coverImageUrl: d.cover_image_url ?? d.miniapp_cover_image ?? null,
        sourceMetadata: {
          ...(d.cast_hash ? { cast_hash: d.cast_hash } : {}),
          ...(d.miniapp_cover_image ? { miniapp_cover_image: d.miniapp_cover_image } : {}),
          ...(d.miniapp_user_id ? { miniapp_user_id: d.miniapp_user_id } : {}),
        },
      });
      // The variables as sent, in prompt-editor form (normalization may add built-in ones).
      const variables = data.variables.filter((v) => req.variables.some((b) => b.name === v.name));
      return {
        collection,
        link,
        variables,
        component: { type: component.type, job_type: component.job_type, template: component.template },
      };
    },
  };
}

export type CustodialService = ReturnType<typeof createCustodialService>;
