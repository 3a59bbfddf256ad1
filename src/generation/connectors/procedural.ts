/**
 * The built-in renderer (embedded default): no model, no network. It draws an SVG whose colours
 * and shapes come from the resolved values and a seeded PRNG, writes the prompt and the values on
 * it, tiles the reference images into it and renders a PNG with sharp. Same request → the same
 * bytes (on the same sharp/libvips build and fonts), so tests and demos are reproducible.
 */
import sharp, { type OverlayOptions } from 'sharp';
import { createRng, deriveSeed, hashString } from '../../domain/variables.ts';
import { isBlankImage } from '../../domain/generation-data.ts';
import {
  GeneratorError,
  checkSize,
  throwIfAborted,
  type GenerateRequest,
  type GenerateResult,
  type GeneratorConnector,
  type ProgressFn,
} from './types.ts';

/** Hues for common colour words, so a value like "crimson red" looks red. */
const COLOR_WORDS: Array<[RegExp, number, number?]> = [
  [/\b(red|crimson|scarlet|ruby)\b/i, 0],
  [/\b(orange|amber|copper)\b/i, 28],
  [/\b(gold|golden|yellow)\b/i, 50],
  [/\b(green|emerald|lime|forest)\b/i, 120],
  [/\b(teal|turquoise|cyan|aqua)\b/i, 180],
  [/\b(blue|azure|navy|sapphire|ocean)\b/i, 220],
  [/\b(purple|violet|indigo|lavender)\b/i, 275],
  [/\b(pink|magenta|rose)\b/i, 320],
  [/\b(brown|bronze|wood)\b/i, 25, 35],
  [/\b(black|dark|night)\b/i, 0, -1],
  [/\b(white|snow|ivory)\b/i, 0, -2],
  [/\b(gr[ae]y|silver|ash)\b/i, 0, -3],
];

interface Hsl {
  h: number;
  s: number;
  l: number;
}

function colorFor(value: string, rng: () => number): Hsl {
  for (const [re, h, special] of COLOR_WORDS) {
    if (!re.test(value)) continue;
    if (special === -1) return { h: 230, s: 20, l: 12 };
    if (special === -2) return { h: 45, s: 30, l: 94 };
    if (special === -3) return { h: 210, s: 8, l: 62 };
    return { h, s: special ?? 70 + Math.floor(rng() * 20), l: 45 + Math.floor(rng() * 12) };
  }
  return { h: hashString(value) % 360, s: 50 + Math.floor(rng() * 30), l: 40 + Math.floor(rng() * 25) };
}

const css = (c: Hsl, alpha = 1) => `hsla(${c.h},${c.s}%,${c.l}%,${alpha})`;

function escapeXml(s: string): string {
  // Control characters are not allowed in XML 1.0; the rest is escaped.
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ' ')
    .replace(/[<>&'"]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : c === "'" ? '&apos;' : '&quot;'));
}

function wrap(text: string, maxChars: number, maxLines: number): string[] {
  const words = text.replace(/\s+/g, ' ').trim().split(' ');
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    const next = line ? `${line} ${w}` : w;
    if (next.length <= maxChars) {
      line = next;
      continue;
    }
    if (line) lines.push(line);
    line = w.length > maxChars ? w.slice(0, maxChars - 1) + '…' : w;
    if (lines.length === maxLines) break;
  }
  if (line && lines.length < maxLines) lines.push(line);
  if (lines.length === maxLines && words.join(' ').length > lines.join(' ').length) {
    const last = lines[maxLines - 1]!;
    lines[maxLines - 1] = last.slice(0, Math.max(0, maxChars - 1)) + '…';
  }
  return lines;
}

interface Layout {
  width: number;
  height: number;
  tile: number;
  margin: number;
  tiles: Array<{ name: string; left: number; top: number; bytes?: Buffer }>;
}

function layout(req: GenerateRequest, width: number, height: number): Layout {
  const margin = Math.max(4, Math.round(Math.min(width, height) / 64));
  const refs = req.referenceImages.slice(0, 6);
  const tile = Math.max(8, Math.floor((Math.min(width, height) - margin * 7) / 6));
  return {
    width,
    height,
    tile,
    margin,
    tiles: refs.map((r, i) => ({ name: r.name, left: margin + i * (tile + margin), top: margin, ...(r.bytes ? { bytes: r.bytes } : {}) })),
  };
}

/** The SVG for a request; exported for tests and for debugging a render. */
export function buildSvg(req: GenerateRequest, width: number, height: number): string {
  const rng = createRng(deriveSeed(req.seed >>> 0, 'procedural'));
  const entries = Object.entries(req.values)
    .filter(([, v]) => !isBlankImage(v) && !/^(https?|data|blank):/i.test(v))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const palette = entries.map(([, v]) => colorFor(v, rng));
  while (palette.length < 3) palette.push({ h: Math.floor(rng() * 360), s: 45 + Math.floor(rng() * 35), l: 35 + Math.floor(rng() * 30) });
  const L = layout(req, width, height);
  const min = Math.min(width, height);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<defs><linearGradient id="bg" x1="0" y1="0" x2="${rng().toFixed(3)}" y2="1">`,
    `<stop offset="0" stop-color="${css(palette[0]!)}"/><stop offset="1" stop-color="${css(palette[1]!)}"/></linearGradient></defs>`,
    `<rect width="${width}" height="${height}" fill="url(#bg)"/>`,
  );
  const shapeCount = 10 + Math.floor(rng() * 10);
  for (let i = 0; i < shapeCount; i++) {
    const c = palette[Math.floor(rng() * palette.length)]!;
    const x = rng() * width;
    const y = rng() * height;
    const size = min * (0.05 + rng() * 0.25);
    const alpha = (0.35 + rng() * 0.45).toFixed(2);
    const kind = Math.floor(rng() * 3);
    const fill = css(c, Number(alpha));
    if (kind === 0) {
      parts.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${(size / 2).toFixed(1)}" fill="${fill}"/>`);
    } else if (kind === 1) {
      const rot = Math.floor(rng() * 90);
      parts.push(
        `<rect x="${(x - size / 2).toFixed(1)}" y="${(y - size / 2).toFixed(1)}" width="${size.toFixed(1)}" height="${(size * (0.5 + rng())).toFixed(1)}" fill="${fill}" transform="rotate(${rot} ${x.toFixed(1)} ${y.toFixed(1)})"/>`,
      );
    } else {
      const pts = [0, 1, 2]
        .map((k) => {
          const a = (k * 2 * Math.PI) / 3 + rng();
          return `${(x + (Math.cos(a) * size) / 2).toFixed(1)},${(y + (Math.sin(a) * size) / 2).toFixed(1)}`;
        })
        .join(' ');
      parts.push(`<polygon points="${pts}" fill="${fill}"/>`);
    }
  }
  // Frames for the reference tiles; tiles without bytes show their name instead of a picture.
  for (const t of L.tiles) {
    parts.push(`<rect x="${t.left - 2}" y="${t.top - 2}" width="${L.tile + 4}" height="${L.tile + 4}" fill="white"/>`);
    if (!t.bytes) {
      const fs = Math.max(6, Math.round(L.tile / 8));
      parts.push(
        `<rect x="${t.left}" y="${t.top}" width="${L.tile}" height="${L.tile}" fill="#888"/>`,
        `<text x="${t.left + L.tile / 2}" y="${t.top + L.tile / 2}" font-family="DejaVu Sans, sans-serif" font-size="${fs}" text-anchor="middle" fill="white">${escapeXml(t.name)}</text>`,
      );
    }
  }
  // Caption panel: the prompt, then every value, so the picture visibly reflects its inputs.
  const fontSize = Math.max(8, Math.round(height / 40));
  const lineH = Math.round(fontSize * 1.3);
  const maxChars = Math.max(8, Math.floor((width - 4 * L.margin) / (fontSize * 0.6)));
  const available = Math.max(2, Math.floor((height * 0.4) / lineH));
  const promptLines = wrap(req.prompt || '(no prompt)', maxChars, Math.min(3, available - 1));
  const valueLines = entries.map(([k, v]) => {
    const line = `${k}: ${v}`;
    return line.length > maxChars ? line.slice(0, maxChars - 1) + '…' : line;
  });
  const lines = [...promptLines, ...valueLines].slice(0, available - 1);
  lines.push(`seed ${req.seed >>> 0}`);
  const panelH = lines.length * lineH + 2 * L.margin;
  parts.push(`<rect x="0" y="${height - panelH}" width="${width}" height="${panelH}" fill="rgba(0,0,0,0.55)"/>`);
  lines.forEach((line, i) => {
    const bold = i < promptLines.length ? ' font-weight="bold"' : '';
    parts.push(
      `<text x="${2 * L.margin}" y="${height - panelH + L.margin + (i + 1) * lineH - Math.round(lineH * 0.25)}" font-family="DejaVu Sans, sans-serif" font-size="${fontSize}"${bold} fill="white">${escapeXml(line)}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** PNG settings fixed explicitly so output does not depend on sharp's defaults changing. */
const PNG_OPTIONS = { compressionLevel: 6, adaptiveFiltering: false, palette: false, progressive: false } as const;

export class ProceduralConnector implements GeneratorConnector {
  readonly kind = 'procedural';

  async generate(req: GenerateRequest, onProgress: ProgressFn, signal?: AbortSignal): Promise<GenerateResult> {
    const { width, height } = checkSize(req);
    throwIfAborted(signal);
    onProgress(0, 'composing');
    const svg = buildSvg(req, width, height);
    const L = layout(req, width, height);
    onProgress(25, 'preparing reference images');
    const overlays: OverlayOptions[] = [];
    for (const t of L.tiles) {
      if (!t.bytes) continue;
      try {
        const input = await sharp(t.bytes).resize(L.tile, L.tile, { fit: 'cover' }).removeAlpha().png(PNG_OPTIONS).toBuffer();
        overlays.push({ input, left: t.left, top: t.top });
      } catch (e) {
        throw new GeneratorError(`reference image ${t.name} is not a readable image`, { retryable: false, cause: e });
      }
      throwIfAborted(signal);
    }
    onProgress(50, 'rendering');
    // Render the SVG first, then composite: overlaying onto an SVG input directly would re-rasterize it.
    const base = await sharp(Buffer.from(svg), { density: 72 }).png(PNG_OPTIONS).toBuffer();
    throwIfAborted(signal);
    onProgress(80, 'encoding');
    const bytes = overlays.length > 0 ? await sharp(base).composite(overlays).png(PNG_OPTIONS).toBuffer() : base;
    onProgress(100, 'done');
    return {
      bytes,
      mimeType: 'image/png',
      meta: {
        generator: 'procedural',
        width,
        height,
        seed: req.seed >>> 0,
        // Where each reference went, so callers (and tests) can find it in the picture.
        referenceImages: L.tiles.map((t) => ({ name: t.name, drawn: Boolean(t.bytes), left: t.left, top: t.top, size: L.tile })),
      },
    };
  }
}
