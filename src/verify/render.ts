/**
 * Re-rendering a token made by the built-in procedural renderer from its receipt alone, as the
 * worker made it (src/generation/worker.ts): each step in order with its prompt, seed, size, the
 * resolved values and the reference images (downloaded; one that cannot be read is a placeholder
 * tile, as in the worker), the previous step's picture first from the second step on. Answers the
 * sha256 of the last picture's decoded RGBA pixels, to compare with `output.pixels_sha256`.
 */
import { sniffImageType, type ReferenceImageInput } from '../generation/connectors/types.ts';
import { ProceduralConnector } from '../generation/connectors/procedural.ts';
import type { TokenReceipt } from '../domain/receipt.ts';
import { pixelsSha256 } from '../services/receipts.ts';

export async function rerenderPixelsSha256(receipt: TokenReceipt, download: (url: string) => Promise<Buffer>): Promise<string> {
  const connector = new ProceduralConnector();
  const values = Object.fromEntries(receipt.variables.map((v) => [v.name, v.value]));
  let previous: Buffer | null = null;
  for (const step of receipt.steps) {
    const referenceImages: ReferenceImageInput[] = await Promise.all(
      step.reference_images.map(async (r): Promise<ReferenceImageInput> => {
        const bytes = await download(r.url).catch(() => null);
        return bytes && sniffImageType(bytes).startsWith('image/') ? { name: r.name, url: r.url, bytes } : { name: r.name, url: r.url };
      }),
    );
    if (previous) referenceImages.unshift({ name: 'previous_step', bytes: previous });
    const result = await connector.generate(
      {
        prompt: step.prompt,
        seed: step.seed,
        ...(step.width ? { width: step.width } : {}),
        ...(step.height ? { height: step.height } : {}),
        values,
        referenceImages,
      },
      () => undefined,
    );
    previous = result.bytes;
  }
  if (!previous) throw new Error('the receipt has no steps to render');
  return pixelsSha256(previous);
}
