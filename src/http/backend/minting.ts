/** Minting and samples routes (nft-service.md §3 Minting, §4.2, §4.3). */
import type { FastifyInstance } from 'fastify';

export interface MintingDeps {}

export function mintingRoutes(_app: FastifyInstance, _deps: MintingDeps) {}
