/** Helpers for the content tests (outputs, decks, uploads): callers and small media files. */
import { SignJWT } from 'jose';
import sharp from 'sharp';
import { JWT_SECRET, asService, type TestPlatform } from './platform.ts';

const secret = new TextEncoder().encode(JWT_SECRET);

/** A user's own credential: an HS256 JWT whose sub the backend resolves to an internal uuid. */
export const userToken = (sub: string) =>
  new SignJWT({ sub }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('10m').sign(secret);

/** Calls as a given identity: `{service: userId}` (service key + user_id), a JWT, or raw headers. */
export function client(p: TestPlatform, base: 'backend' | 'admin' = 'backend') {
  return (path: string, headers: Record<string, string>, opts: { method?: string; body?: unknown; raw?: string } = {}) =>
    p.request(base, path, { ...opts, headers });
}

export const svc = (userId?: string) => asService(userId ? { user_id: userId } : {});
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export async function makeCollection(p: TestPlatform, headers: Record<string, string> = asService(), title = 'Content') {
  const res = await p.request('backend', '/nft/collections', { headers, body: { title, data: { version: 'v2' } } });
  if (res.status !== 201) throw new Error(`collection create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.collection.id as string;
}

export const png = (w = 64, h = 48, color = '#ff0000') =>
  sharp({ create: { width: w, height: h, channels: 3, background: color } })
    .png()
    .toBuffer();
export const jpeg = () =>
  sharp({ create: { width: 32, height: 32, channels: 3, background: '#00ff00' } })
    .jpeg()
    .toBuffer();
export const webp = () =>
  sharp({ create: { width: 32, height: 32, channels: 3, background: '#0000ff' } })
    .webp()
    .toBuffer();
export const gif = () =>
  sharp({ create: { width: 32, height: 32, channels: 3, background: '#ffff00' } })
    .gif()
    .toBuffer();

/** The start of an ISO base media file: an `ftyp` box with brand isom, then an empty `mdat`. */
export function mp4(): Buffer {
  const ftyp = Buffer.concat([
    Buffer.from([0, 0, 0, 0x18]),
    Buffer.from('ftypisom', 'latin1'),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from('isomiso2', 'latin1'),
  ]);
  const mdat = Buffer.concat([Buffer.from([0, 0, 0, 8]), Buffer.from('mdat', 'latin1')]);
  return Buffer.concat([ftyp, mdat]);
}

/** An EBML header with the given DocType (webm, or matroska to test refusal). */
export function ebml(docType = 'webm'): Buffer {
  const dt = Buffer.from(docType, 'latin1');
  const body = Buffer.concat([
    Buffer.from([0x42, 0x86, 0x81, 0x01]), // EBMLVersion 1
    Buffer.from([0x42, 0xf7, 0x81, 0x01]), // EBMLReadVersion 1
    Buffer.from([0x42, 0x82, 0x80 | dt.length]),
    dt,
  ]);
  return Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x80 | body.length]), body, Buffer.alloc(16)]);
}
