/**
 * The admin web UI (docs/admin-ui.md): static files from `web/` at `GET /` and `GET /ui/*`, and
 * the socket.io browser client at `GET /ui/vendor/socket.io.esm.min.js` (from the socket.io-client
 * package, the version the server speaks). Public routes (they serve files only; every API call
 * the page makes carries its credential), with a strict Content-Security-Policy: scripts, styles,
 * API calls and the socket.io connection from this origin only. Images may also come from the
 * platform's own file hosts (token artwork is stored there).
 */
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { pageCsp, type CspOptions } from '../plugins/csp.ts';
import { sendError } from '../plugins/errors.ts';

export const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web');
/** The socket.io browser client as an ES module (a dependency, so `npm install --omit=dev` keeps it). */
export const SOCKET_IO_CLIENT = path.join(
  path.dirname(createRequire(import.meta.url).resolve('socket.io-client/package.json')),
  'dist',
  'socket.io.esm.min.js',
);

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

export function contentSecurityPolicy(config: CspOptions): string {
  return pageCsp(config, { frameAncestors: "'none'" });
}

/** What the console's routes are given: the configuration its CSP reads, and where its files are. */
export interface AdminUiOptions {
  config: CspOptions;
  webDir?: string;
}

export async function adminUiRoutes(app: FastifyInstance, deps: AdminUiOptions) {
  const webDir = deps.webDir ?? WEB_DIR;
  const csp = contentSecurityPolicy(deps.config);

  async function sendFile(reply: FastifyReply, relative: string, absolute?: string) {
    const type = CONTENT_TYPES[path.extname(relative).toLowerCase()];
    const file = absolute ?? path.resolve(webDir, relative);
    // Only known file types, only inside web/ (no `..`, no absolute paths, no dotfiles).
    const missing = () => sendError(reply, 'success', 404, `not found: /ui/${relative}`);
    if (!type || (!absolute && !file.startsWith(webDir + path.sep)) || relative.split('/').some((part) => part.startsWith('.')))
      return missing();
    let body: Buffer;
    try {
      body = await fs.readFile(file);
    } catch {
      return missing();
    }
    return reply
      .header('content-type', type)
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .header('cache-control', 'no-cache')
      .send(body);
  }

  const opts = { config: { public: true }, schema: { hide: true } };
  app.get('/', opts, (_req, reply) => sendFile(reply, 'index.html'));
  app.get('/ui/vendor/socket.io.esm.min.js', opts, (_req, reply) => sendFile(reply, 'vendor/socket.io.esm.min.js', SOCKET_IO_CLIENT));
  app.get<{ Params: { '*': string } }>('/ui/*', opts, (req, reply) => sendFile(reply, req.params['*']));
}
