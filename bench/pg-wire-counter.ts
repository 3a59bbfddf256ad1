/**
 * A TCP proxy in front of PostgreSQL that counts round trips on the wire: every simple Query
 * ('Q') and every Sync ('S', the end of an extended-protocol batch) the client sends waits for the
 * server's answer, so their sum is the number of round trips. Statements whose text starts with
 * COMMIT are counted too. Used by bench/jobs.ts to count what a job costs the database.
 */
import net from 'node:net';

export interface WireCounts {
  roundTrips: number;
  commits: number;
}

export interface WireCounter {
  /** postgres:// URL that goes through the proxy (same database, user and options). */
  url: string;
  counts(): WireCounts;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

/** Parses the client→server stream of one connection, counting as it goes. */
function frontendParser(counts: WireCounts) {
  let buf: Buffer = Buffer.alloc(0);
  let startup = true;
  return (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    for (;;) {
      if (startup) {
        // Untyped: int32 length (itself included), then int32 code.
        if (buf.length < 8) return;
        const len = buf.readInt32BE(0);
        if (buf.length < len) return;
        const code = buf.readInt32BE(4);
        buf = buf.subarray(len);
        if (code !== SSL_REQUEST && code !== GSS_REQUEST) startup = false;
        continue;
      }
      if (buf.length < 5) return;
      const type = String.fromCharCode(buf[0]!);
      const len = buf.readInt32BE(1);
      if (buf.length < 1 + len) return;
      const body = buf.subarray(5, 1 + len);
      if (type === 'Q' || type === 'S') counts.roundTrips++;
      // Query: the text; Parse: a statement name then the text (both NUL-terminated).
      const text = type === 'Q' ? body.toString('utf8') : type === 'P' ? body.subarray(body.indexOf(0) + 1).toString('utf8') : '';
      if (/^\s*commit\b/i.test(text)) counts.commits++;
      buf = buf.subarray(1 + len);
    }
  };
}

export async function startWireCounter(databaseUrl: string): Promise<WireCounter> {
  const target = new URL(databaseUrl);
  const counts: WireCounts = { roundTrips: 0, commits: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const parse = frontendParser(counts);
    client.on('data', (chunk) => {
      parse(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(databaseUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as net.AddressInfo).port);
  return {
    url: proxied.toString(),
    counts: () => ({ ...counts }),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
