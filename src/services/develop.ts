import type { GlobalCollectionRow } from '../db/global-collections.ts';
import type { OutputRow } from '../db/outputs.ts';
import { AppError, conflict, invalid } from '../domain/errors.ts';
import { authorize, type Caller } from '../domain/policy.ts';
import { NO_QUEUE, type GenerationService, type StartGenerationResult } from './generation.ts';
import { ownership } from './ownership.ts';

export interface DevelopPorts {
  outputs: { get(id: string): Promise<OutputRow & { collection_owner_id: string | null }> };
  collections: {
    get(id: string): Promise<{ id: string; title: string; is_global: boolean; input_type: string | null; output_type: string | null }>;
    globals(inputType?: string): Promise<GlobalCollectionRow[]>;
    setGlobal(
      id: string,
      mark: { isGlobal: boolean; inputType: string | null; outputType: string | null },
    ): Promise<GlobalCollectionRow & { is_global: boolean }>;
  };
  /** Absent without a job queue (develop then answers 503). */
  generation?: Pick<GenerationService, 'start'>;
}

/** image/png → image, video/mp4 → video, text/plain → text. */
export function mediaKind(mime: string | null): string | null {
  const top = mime?.split('/')[0];
  return top === 'image' || top === 'video' || top === 'text' ? top : null;
}

export function createDevelopService(ports: DevelopPorts) {
  return {
    collections: (inputType?: string) => ports.collections.globals(inputType),

    /** The operator marks a collection global (what it takes and makes) or ordinary again. */
    async setGlobal(caller: Caller, id: string, mark: { isGlobal: boolean; inputType?: string; outputType?: string }) {
      authorize(caller, 'collection.set_global');
      if (mark.isGlobal && (!mark.inputType || !mark.outputType))
        throw invalid('body: a global collection needs input_type and output_type');
      return ports.collections.setGlobal(id, {
        isGlobal: mark.isGlobal,
        inputType: mark.isGlobal ? (mark.inputType ?? null) : null,
        outputType: mark.isGlobal ? (mark.outputType ?? null) : null,
      });
    },

    async develop(caller: Caller, sourceId: string, input: { collectionId: string; variables?: Record<string, unknown> }) {
      const source = await ports.outputs.get(sourceId);
      authorize(caller, 'output.develop', ownership(source));
      if (source.status !== 'completed' || !source.url)
        throw conflict(`output ${source.id} is ${source.status}: only completed outputs can be developed`);
      const target = await ports.collections.get(input.collectionId);
      if (!target.is_global) throw invalid(`body.collection_id: collection ${target.id} is not a global collection`);
      const kind = mediaKind(source.mime_type);
      if (target.input_type && kind !== target.input_type) {
        throw invalid(
          `body.collection_id: collection ${target.id} takes ${target.input_type} input, the output is ${kind ?? source.mime_type ?? 'of unknown type'}`,
        );
      }
      if (!ports.generation) throw new AppError('unavailable', NO_QUEUE);
      const result: StartGenerationResult = await ports.generation.start(caller, {
        collectionId: target.id,
        variables: { ...(input.variables ?? {}), ref_image_1: source.url },
        ...(source.deck_id ? { deckId: source.deck_id } : {}),
        parentOutputId: source.id,
        outputCollectionId: source.collection_id,
        source: 'studio_workflow',
        jobType: 'develop',
      });
      return { result, source, target };
    },
  };
}

export type DevelopService = ReturnType<typeof createDevelopService>;
