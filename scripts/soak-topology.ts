/**
 * `npm run soak:topology`: the topology (two backend replicas, two workers, admin, indexer) for
 * DURATION seconds (default 300) of steady minting over both replicas while the artwork completes;
 * then every token must have exactly one MetadataUpdate on chain (docs/minting.md "ERC-4906 MetadataUpdate"). Prints
 * the counts; exits 1 when a token has none or more than one.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test DURATION=300 npm run soak:topology
 *
 * Uses the topology test's harness (a throwaway database, an own redis-server, anvil).
 */
import { call, chainFacts, deckFacts, deployedCollection, RECIPIENT, skipReason, startTestTopology } from '../test/topology/harness.ts';

const reason = skipReason();
if (reason) {
  process.stderr.write(`soak:topology: ${reason}\n`);
  process.exit(2);
}
const durationS = Number(process.env.DURATION ?? 300);
const concurrency = Number(process.env.SOAK_CONCURRENCY ?? 4);
const t = await startTestTopology();
let code = 0;
try {
  const [b1, b2] = t.topology.of('backend').map((p) => p.url) as [string, string];
  const collection = await deployedCollection(b1, 100_000);
  process.stdout.write(`soak: minting over ${b1} and ${b2} for ${durationS} s (${concurrency} at a time)\n`);
  const end = Date.now() + durationS * 1000;
  let answered = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, k) => {
      for (let i = 0; Date.now() < end; i++) {
        const r = await call(`${(i + k) % 2 ? b1 : b2}/nft/collections/${collection.id}/mint`, { recipient: RECIPIENT, quantity: 1 }).catch(
          () => undefined,
        );
        if (r?.status === 201) answered++;
        else failed++;
      }
    }),
  );
  process.stdout.write(`soak: ${answered} mints answered 201, ${failed} not; waiting for the artwork and its MetadataUpdates to settle\n`);
  // Settle: every completed artwork's MetadataUpdate, or 120 s.
  const settleStart = Date.now();
  const settleEnd = settleStart + 120_000;
  let facts = await chainFacts(t.topology.rpcUrl, collection.address);
  let withArtwork: number[] = [];
  while (Date.now() < settleEnd) {
    const { rows } = await t.db.query<{ token_id: string; status: string }>(
      `SELECT d.token_id::text, o.status FROM decks d JOIN outputs o ON o.id = d.cover_output_id
        WHERE d.collection_id = $1 AND d.token_id IS NOT NULL`,
      [collection.id],
    );
    withArtwork = rows.filter((r) => r.status === 'completed').map((r) => Number(r.token_id));
    facts = await chainFacts(t.topology.rpcUrl, collection.address);
    const open = rows.some((r) => r.status === 'pending' || r.status === 'processing');
    if (!open && withArtwork.every((id) => facts.metadataUpdates.has(id))) break;
    await new Promise((r) => setTimeout(r, 2000));
  }
  const decks = await deckFacts(t.db, collection.id);
  const counts = [...facts.metadataUpdates.values()];
  const missing = withArtwork.filter((id) => !facts.metadataUpdates.has(id));
  const twice = counts.filter((n) => n > 1).length;
  process.stdout.write(
    [
      `tokens on chain           ${facts.minted.length}`,
      `decks with a token        ${decks.size}`,
      `tokens with artwork       ${withArtwork.length}`,
      `MetadataUpdate events     ${counts.reduce((a, b) => a + b, 0)}`,
      `tokens with exactly one   ${counts.filter((n) => n === 1).length}`,
      `tokens with more than one ${twice}`,
      `artwork without one       ${missing.length}`,
      `settled after             ${((Date.now() - settleStart) / 1000).toFixed(1)} s (minting stopped → last check)`,
      '',
    ].join('\n'),
  );
  if (twice > 0 || missing.length > 0 || decks.size !== facts.minted.length) code = 1;
} finally {
  await t.close();
}
process.exit(code);
