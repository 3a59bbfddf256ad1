/**
 * Thumbnails for completed image outputs: a WebP no larger than 512×512 (aspect kept, never
 * enlarged; first frame of an animation), stored at `thumbnails/<outputId>.webp` (the generation
 * worker gives each run its own key instead).
 */
import sharp from 'sharp';
import { isImageType, sniffType } from './mime.ts';
import type { Storage } from './types.ts';

export const THUMBNAIL_SIZE = 512;

export async function renderThumbnail(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes, { limitInputPixels: 100_000_000 })
    .rotate() // honour EXIF orientation
    .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 80 })
    .toBuffer();
}

/**
 * Makes the thumbnail of the image at `url` when it lives in our storage; returns its public URL,
 * or null when the url is not ours, the object is missing, or it is not an image.
 */
export async function makeThumbnail(
  storage: Storage,
  outputId: string,
  url: string,
  mimeType: string | null,
  /** The image's bytes when the caller has them (the worker just stored them): saves a read. */
  bytes?: Buffer,
  /** A fresh key of the caller's, written once (Storage.putNew); default `thumbnails/<outputId>.webp`, replaced. */
  freshKey?: string,
): Promise<string | null> {
  const key = storage.keyFromUrl(url);
  if (!key) return null;
  if (mimeType && !isImageType(mimeType)) return null;
  const source = bytes ?? (await storage.get(key))?.bytes;
  if (!source) return null;
  const sniffed = sniffType(source);
  if (!sniffed || !isImageType(sniffed)) return null;
  const thumb = await renderThumbnail(source);
  const stored = freshKey
    ? await storage.putNew(freshKey, thumb, 'image/webp')
    : await storage.put(`thumbnails/${outputId}.webp`, thumb, 'image/webp');
  return stored.url;
}
