/**
 * Feed items as the API shows them (docs/api/content.md §2.7, §4.7 rules 4 and 5, docs/feed.md):
 * the display image (thumbnail, then url for images, then the collection cover), the playback of
 * videos (HLS through the video provider when the file has a playback id, else direct).
 */
import type { FeedOutputRow } from '../../db/feed.ts';
import { iso } from '../../domain/time.ts';
import type { FeedCreator, FeedItem } from '../../services/feed.ts';

export interface StreamSettings {
  /** HLS base: `${hlsBase}/${playbackId}.m3u8`. */
  hlsBase: string;
  /** Thumbnails: `${thumbnailBase}/${playbackId}/thumbnail.jpg?width=&height=&time=`. */
  thumbnailBase: string;
}

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

export function presentFeedOutput(r: FeedOutputRow, creator: FeedCreator, coverImage: string | null, stream: StreamSettings) {
  const playbackId = r.stream_playback_id ?? null;
  const mime = r.mime_type ?? null;
  const isVideo = mime?.startsWith('video/') ?? false;
  return {
    id: r.id,
    url: r.url ?? null,
    thumbnail_url: r.thumbnail_url ?? null,
    mime_type: mime,
    status: r.status,
    created_at: iso(r.created_at),
    parent_output_id: r.parent_output_id ?? null,
    stream_playback_id: playbackId,
    stream_asset_id: r.stream_asset_id ?? null,
    creator,
    // Rule 4: thumbnail, then url, then the collection cover.
    display_image: r.thumbnail_url ?? (isVideo ? null : r.url) ?? coverImage,
    // Rule 5: stream a video that has a playback id, else play the url directly.
    playback:
      isVideo && playbackId
        ? {
            type: 'hls' as const,
            url: `${stream.hlsBase}/${playbackId}.m3u8`,
            thumbnail_url: `${stream.thumbnailBase}/${playbackId}/thumbnail.jpg`,
          }
        : isVideo
          ? { type: 'direct' as const, url: r.url ?? null, thumbnail_url: null }
          : null,
  };
}

export function presentFeedCollection(item: FeedItem, stream: StreamSettings) {
  const c = item.collection;
  const outputs = item.featuredDeck?.outputs ?? [];
  const firstImage = outputs[0] ? (outputs[0].thumbnail_url ?? outputs[0].url) : null;
  // A collection's cover: its own, else its featured deck's first output image.
  const cover = c.cover_image_url ?? firstImage;
  return {
    id: c.id,
    title: c.title,
    description: c.description,
    cover_image: cover,
    creator: item.creator,
    config: {
      price: c.price === null ? null : Number(c.price),
      is_featured: Boolean(c.is_featured),
      generations_per_payment: num(c.generations_per_payment),
    },
    featured_deck: item.featuredDeck
      ? {
          id: item.featuredDeck.deck.id,
          name: item.featuredDeck.deck.name,
          output_count: num(item.featuredDeck.deck.output_count),
          has_more_outputs: item.featuredDeck.hasMoreOutputs,
          outputs: outputs.map((o) => presentFeedOutput(o, item.creator, cover, stream)),
        }
      : null,
    total_decks: item.totalDecks,
    total_outputs: num(c.total_outputs),
    recent_outputs: num(c.recent_outputs),
  };
}
