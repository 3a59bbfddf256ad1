/**
 * What a file is, from its own bytes (magic numbers), never from what the client declares.
 * The upload allowlist (docs/api/content.md §8) is exactly these six types.
 */
export const ALLOWED_UPLOAD_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'video/mp4', 'video/webm'] as const;
export type AllowedType = (typeof ALLOWED_UPLOAD_TYPES)[number];

export const EXTENSION: Record<AllowedType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
};

/** Extension → content type, for serving stored files (we chose the extensions ourselves). */
const TYPE_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  webm: 'video/webm',
  json: 'application/json',
  txt: 'text/plain; charset=utf-8',
};

export function contentTypeForKey(key: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(key)?.[1]?.toLowerCase();
  return (ext && TYPE_BY_EXTENSION[ext]) || 'application/octet-stream';
}

const ascii = (bytes: Uint8Array, start: number, end: number) => Buffer.from(bytes.subarray(start, end)).toString('latin1');

/** ISO base media (MP4) major brands we take as video/mp4. QuickTime ('qt  ') and HEIF/AVIF are not mp4. */
const MP4_BRANDS = new Set([
  'isom',
  'iso2',
  'iso3',
  'iso4',
  'iso5',
  'iso6',
  'iso8',
  'iso9',
  'mp41',
  'mp42',
  'avc1',
  'dash',
  'M4V ',
  'mmp4',
  'msnv',
  'f4v ',
]);

/** The allowed type these bytes are, or null when they are none of them. */
export function sniffType(bytes: Uint8Array): AllowedType | null {
  const b = bytes;
  if (b.length >= 8 && b[0] === 0x89 && ascii(b, 1, 4) === 'PNG' && b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a) {
    return 'image/png';
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a')) return 'image/gif';
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'image/webp';
  if (b.length >= 12 && ascii(b, 4, 8) === 'ftyp' && MP4_BRANDS.has(ascii(b, 8, 12))) return 'video/mp4';
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) {
    // EBML header: the DocType element (0x42 0x82, size, text) says webm or matroska.
    const head = b.subarray(0, Math.min(b.length, 64));
    for (let i = 4; i + 3 < head.length; i++) {
      if (head[i] === 0x42 && head[i + 1] === 0x82) {
        const size = head[i + 2]! & 0x7f; // one-byte EBML size (0x80 | n)
        if (ascii(head, i + 3, i + 3 + size) === 'webm') return 'video/webm';
        return null;
      }
    }
  }
  return null;
}

export const isImageType = (type: string | null | undefined) => !!type && type.toLowerCase().startsWith('image/');
