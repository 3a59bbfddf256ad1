/**
 * Ports checked before anything starts, so a taken port is reported naming the variable that
 * chose it, and the embedded chain never attaches to somebody else's node on DEV_CHAIN_PORT
 * (docs/security.md "Safe start-up").
 */
import net from 'node:net';
import { ConfigError } from '../config-error.ts';

/** Resolves when `port` can be bound on `host` (the probe is closed again at once). */
export function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE' || err.code === 'EACCES') resolve(false);
      else reject(err);
    });
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** A ConfigError naming `variable` when its port is taken. Port 0 (any free port) always passes. */
export async function requirePortFree(variable: string, host: string, port: number, what: string): Promise<void> {
  if (port === 0) return;
  if (await portFree(host, port)) return;
  throw new ConfigError(
    variable,
    `port ${port} on ${host} is already in use (${what}); stop what holds it or set ${variable} to a free port`,
  );
}

/** Whether `err` is a listen() failure because the address is taken. */
export const isAddressInUse = (err: unknown): boolean => (err as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
