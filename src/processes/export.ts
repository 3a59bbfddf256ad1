/**
 * `atelier export <collection id> --car <file>` (docs/permanence.md): a client of the running
 * platform's API, not a process of its own — it never opens the database (a running `atelier
 * start` holds the data directory's lock). It asks POST /nft/collections/:id/export, polls
 * GET …/export until the bundle is ready, downloads the CAR from car_url to <file> and prints the
 * root CID. The backend is --backend <url>, else BACKEND_API_URL, else http://127.0.0.1:PORT; the
 * key is API_KEY, else DATA_DIR/api-key (what `atelier start` generated).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

export interface ExportRequest {
  backendUrl: string;
  apiKey: string;
  collectionId: string;
  carPath: string;
  pollMs?: number;
  timeoutMs?: number;
}

export interface ExportResult {
  root_cid: string;
  images_cid: string | null;
  car_url: string;
  car_bytes: number;
  file: string;
}

export class ExportCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportCommandError';
  }
}

/** Parses `export <id> --car <file> [--backend <url>] [--timeout <seconds>]`. */
export function parseExportArgs(argv: string[]): { collectionId: string; carPath: string; backend?: string; timeoutMs?: number } {
  const rest = argv.slice(1);
  const flag = (name: string) => {
    const i = rest.indexOf(name);
    if (i === -1) return undefined;
    const value = rest[i + 1];
    if (!value || value.startsWith('--')) throw new ExportCommandError(`${name} needs a value`);
    rest.splice(i, 2);
    return value;
  };
  const carPath = flag('--car');
  const backend = flag('--backend');
  const timeout = flag('--timeout');
  const [collectionId, ...extra] = rest;
  if (!collectionId) throw new ExportCommandError('usage: atelier export <collection id> --car <file>');
  if (!carPath) throw new ExportCommandError('--car <file> is required: where the CAR is written');
  if (extra.length > 0) throw new ExportCommandError(`unexpected arguments: ${extra.join(' ')}`);
  if (timeout !== undefined && !(Number(timeout) > 0)) throw new ExportCommandError('--timeout must be a number of seconds');
  return { collectionId, carPath, ...(backend ? { backend } : {}), ...(timeout ? { timeoutMs: Number(timeout) * 1000 } : {}) };
}

/** The backend URL and key the command uses (see the module comment). */
export function exportTarget(config: Config, backend?: string): { backendUrl: string; apiKey: string } {
  const backendUrl = (backend ?? config.BACKEND_API_URL ?? `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, '');
  let apiKey = config.API_KEY;
  if (!apiKey) {
    const file = path.join(config.dataDir, 'api-key');
    try {
      apiKey = fs.readFileSync(file, 'utf8').trim();
    } catch {
      throw new ExportCommandError(`no service key: set API_KEY, or run it where ${file} exists (atelier start writes it)`);
    }
  }
  return { backendUrl, apiKey };
}

async function json(res: Response): Promise<{ data?: Record<string, unknown> | null; error?: unknown; code?: unknown }> {
  try {
    return (await res.json()) as { data?: Record<string, unknown> | null; error?: unknown };
  } catch {
    return {};
  }
}

const say = (body: { error?: unknown; code?: unknown }, status: number) =>
  `${status}${body.code ? ` ${String(body.code)}` : ''}: ${typeof body.error === 'string' ? body.error : JSON.stringify(body.error ?? body)}`;

export async function runExportCommand(req: ExportRequest): Promise<ExportResult> {
  const headers = { 'x-api-key': req.apiKey };
  const url = `${req.backendUrl}/nft/collections/${encodeURIComponent(req.collectionId)}/export`;
  const started = await fetch(url, { method: 'POST', headers }).catch((err: unknown) => {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    throw new ExportCommandError(`cannot reach the backend at ${req.backendUrl} (${cause}): is the platform running? (--backend <url>)`);
  });
  if (started.status !== 202) throw new ExportCommandError(`POST ${url}: ${say(await json(started), started.status)}`);
  const exportId = (await json(started)).data?.id;
  const deadline = Date.now() + (req.timeoutMs ?? 600_000);
  for (;;) {
    const res = await fetch(url, { headers });
    const body = await json(res);
    if (res.status !== 200) throw new ExportCommandError(`GET ${url}: ${say(body, res.status)}`);
    const d = body.data!;
    if (d.id !== exportId) throw new ExportCommandError(`another export (${String(d.id)}) started meanwhile; run the command again`);
    if (d.status === 'failed') throw new ExportCommandError(`the export failed: ${String(d.error)}`);
    if (d.status === 'ready') {
      const car = await fetch(String(d.car_url));
      if (car.status !== 200) throw new ExportCommandError(`GET ${String(d.car_url)}: ${car.status}`);
      const bytes = Buffer.from(await car.arrayBuffer());
      fs.writeFileSync(req.carPath, bytes);
      return {
        root_cid: String(d.root_cid),
        images_cid: (d.images_cid as string | null) ?? null,
        car_url: String(d.car_url),
        car_bytes: bytes.length,
        file: path.resolve(req.carPath),
      };
    }
    if (Date.now() > deadline) throw new ExportCommandError(`the export is still ${String(d.status)} after the timeout`);
    await new Promise((r) => setTimeout(r, req.pollMs ?? 1000));
  }
}
