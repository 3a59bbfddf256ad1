/**
 * The indexer's realtime events (docs/api/nft.md §6.3). The indexer publishes here after a block
 * range is committed; socket.io (realtime.ts) forwards them to rooms. Payload shapes are those of docs/api/nft.md §6.3,
 * plus a few named extras documented in docs/indexer.md.
 */
import { EventEmitter } from 'node:events';

export interface IndexerEventPayloads {
  'emprops:ownerToken:minted': { tokenId: string; owner: string; contractAddress: string };
  'emprops:ownerToken:transferred': { tokenId: string; from: string; to: string; contractAddress: string };
  'emprops:app:created': { appAddress: string; ownerTokenId: string; type: string; name: string; symbol: string; owner: string };
  'emprops:appToken:minted': { appAddress: string; to: string; startTokenId: string; quantity: number; txHash: string };
  'emprops:appToken:transferred': { tokenId: string; appAddress: string; from: string; to: string; txHash: string };
  /** A transfer announced earlier that a reorg removed from the chain (docs/indexer.md "Reorgs"). */
  'emprops:appToken:transfer_retracted': {
    tokenId: string;
    appAddress: string;
    from: string;
    to: string;
    txHash: string;
    logIndex: number;
    blockNumber: number;
  };
  'emprops:contract:upgraded': {
    contractType: string;
    implementation: string;
    contractAddress: string;
    action: 'add' | 'replace' | 'remove';
    selectors: string[];
  };
}

export type IndexerEventName = keyof IndexerEventPayloads;

export interface IndexerEvent<N extends IndexerEventName = IndexerEventName> {
  name: N;
  /** `app:<address lowercase>`, or null for an event sent to every connected client. */
  room: string | null;
  payload: IndexerEventPayloads[N];
}

export const appRoom = (address: string) => `app:${address.toLowerCase()}`;

/** In-process fan-out between the indexer and the socket.io server (or a test). */
export class IndexerEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(event: IndexerEvent): void {
    this.emitter.emit('event', event);
  }

  subscribe(listener: (event: IndexerEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
}
