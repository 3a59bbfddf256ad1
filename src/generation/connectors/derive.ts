/**
 * Built-in renderers that derive a new picture from a reference image (the built-in global
 * collections of develop, docs/api/content.md §4.1; docs/jobs.md): no GPU, no outside service.
 *
 * - animate: an animated WebP, a slow zoom and pan over the reference with a hue drift, looping.
 * - variation: a still PNG, the reference recoloured, mirrored or cropped, chosen by seed.
 *
 * Both take the first reference image (ref_image_1 for develop; the previous step's image in a
 * multi-step workflow). Without one the step fails for good: there is nothing to derive from.
 */
import sharp from 'sharp';
import { createRng } from '../../domain/variables.ts';
import {
  GeneratorError,
  throwIfAborted,
  type GenerateRequest,
  type GenerateResult,
  type GeneratorConnector,
  type ProgressFn,
} from './types.ts';

/** Longest side of a derived picture: develop keeps the reference's proportions up to this. */
export const DERIVE_MAX_SIDE = 512;
export const ANIMATION_FRAMES = 12;
export const ANIMATION_FRAME_MS = 120;

async function reference(req: GenerateRequest): Promise<{ bytes: Buffer; width: number; height: number }> {
  const ref = req.referenceImages.find((r) => r.bytes && r.bytes.length > 0);
  if (!ref?.bytes) throw new GeneratorError('no reference image to derive from (ref_image_1 is empty or unreadable)', { retryable: false });
  try {
    const img = sharp(ref.bytes, { animated: false }).rotate();
    const meta = await img.metadata();
    const scale = Math.min(1, DERIVE_MAX_SIDE / Math.max(meta.width ?? 1, meta.height ?? 1));
    const width = Math.max(16, Math.round((meta.width ?? DERIVE_MAX_SIDE) * scale));
    const height = Math.max(16, Math.round((meta.height ?? DERIVE_MAX_SIDE) * scale));
    const bytes = await img.resize(width, height, { fit: 'fill' }).removeAlpha().png().toBuffer();
    return { bytes, width, height };
  } catch (e) {
    throw new GeneratorError(`reference image ${ref.name} is not a readable image`, { retryable: false, cause: e });
  }
}

export class AnimateConnector implements GeneratorConnector {
  readonly kind = 'animate';

  async generate(req: GenerateRequest, onProgress: ProgressFn, signal?: AbortSignal): Promise<GenerateResult> {
    throwIfAborted(signal);
    onProgress(0, 'reading the reference');
    const { bytes, width, height } = await reference(req);
    const rng = createRng(req.seed >>> 0);
    // Zoom in by up to 20 % towards a seed-chosen point, drifting the hue up to 40 degrees.
    const zoom = 0.1 + rng() * 0.1;
    const fx = rng();
    const fy = rng();
    const hue = Math.round(10 + rng() * 30);
    const frames: Buffer[] = [];
    for (let i = 0; i < ANIMATION_FRAMES; i++) {
      throwIfAborted(signal);
      // Out and back (a ping-pong), so the loop has no jump.
      const t = Math.sin((Math.PI * i) / ANIMATION_FRAMES);
      const scale = 1 + zoom * t;
      const w = Math.round(width * scale);
      const h = Math.round(height * scale);
      const left = Math.round((w - width) * fx);
      const top = Math.round((h - height) * fy);
      frames.push(
        await sharp(bytes)
          .resize(w, h, { fit: 'fill' })
          .extract({ left, top, width, height })
          .modulate({ hue: Math.round(hue * t) })
          .png()
          .toBuffer(),
      );
      onProgress(5 + Math.round((85 * (i + 1)) / ANIMATION_FRAMES), `frame ${i + 1} of ${ANIMATION_FRAMES}`);
    }
    const out = await sharp(frames, { join: { animated: true } })
      .webp({ loop: 0, delay: frames.map(() => ANIMATION_FRAME_MS), quality: 80 })
      .toBuffer();
    onProgress(100, 'done');
    return {
      bytes: out,
      mimeType: 'image/webp',
      meta: { generator: 'animate', width, height, frames: ANIMATION_FRAMES, frame_ms: ANIMATION_FRAME_MS },
    };
  }
}

export class VariationConnector implements GeneratorConnector {
  readonly kind = 'variation';

  async generate(req: GenerateRequest, onProgress: ProgressFn, signal?: AbortSignal): Promise<GenerateResult> {
    throwIfAborted(signal);
    onProgress(0, 'reading the reference');
    const { bytes, width, height } = await reference(req);
    const rng = createRng(req.seed >>> 0);
    const hue = Math.round(30 + rng() * 300);
    const saturation = 0.7 + rng() * 0.8;
    const brightness = 0.9 + rng() * 0.2;
    const flop = rng() < 0.5;
    onProgress(40, 'recolouring');
    let img = sharp(bytes).modulate({ hue, saturation, brightness });
    if (flop) img = img.flop();
    const out = await img.png().toBuffer();
    onProgress(100, 'done');
    return { bytes: out, mimeType: 'image/png', meta: { generator: 'variation', width, height, hue, flop } };
  }
}
