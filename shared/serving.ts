/**
 * The serving copy in Redis that answers GET /api/v1/recommend without a ClickHouse round
 * trip. ClickHouse stays the source of truth; the pipeline writes this copy, the API reads it.
 *
 *   <prefix>:serving:list:<snapshot>:<profileId>  string  the first SERVING_DEPTH recommendations (encodeServedList)
 *   <prefix>:serving:profiles                     hash    profileId -> [updatedAt, name, avatar]  (newest wins)
 *   <prefix>:serving:following:<profileId>        hash    followeeId -> updatedAt * 2 + active     (newest wins)
 *   <prefix>:serving:mirror-sync                  hash    the nightly re-sync's progress (pipeline/serving/mirror-sync-state.ts)
 *
 * Lists expire (SERVING_LIST_TTL_SECONDS); a missing list is recomputed or re-read from
 * ClickHouse on demand. The two mirrors are written through by the profiles and follows
 * workers and re-synced from ClickHouse by every nightly run (the rows ingested since the
 * last re-sync; every row when Redis lost the mirror-sync hash, and once a week).
 */
import { z } from 'zod';

export interface ServingKeys {
  list(snapshotId: number, profileId: string): string;
  readonly profiles: string;
  following(profileId: string): string;
  readonly mirrorSync: string;
}

export function servingKeys(queuePrefix: string): ServingKeys {
  const base = `${queuePrefix}:serving`;
  return {
    list: (snapshotId, profileId) => `${base}:list:${snapshotId}:${profileId}`,
    profiles: `${base}:profiles`,
    following: (profileId) => `${base}:following:${profileId}`,
    mirrorSync: `${base}:mirror-sync`,
  };
}

/** One recommendation: [candidateId, reasonKind (1..4), reasonChainId, reasonSubject]. */
export const servedEntrySchema = z.tuple([z.string(), z.number().int().min(1).max(4), z.number().int().min(0), z.string()]);
export type ServedEntry = z.infer<typeof servedEntrySchema>;

/** A profile's list: its best entries in rank order, and whether ClickHouse holds more (`m` = 1). */
export const servedListSchema = z.object({ m: z.union([z.literal(0), z.literal(1)]), e: z.array(servedEntrySchema) });
export type ServedList = z.infer<typeof servedListSchema>;

export const REASON_KINDS = ['social', 'counterparty', 'nft', 'friend_of_friend'] as const;
export type ReasonKind = (typeof REASON_KINDS)[number];

/** The mirror's encoding of a follow state: newer states compare greater; the low bit is `active`. */
export function followState(updatedAt: number, active: boolean): number {
  return updatedAt * 2 + (active ? 1 : 0);
}

/**
 * How a list is stored: a header line {"m":<0|1>,"n":<entries>}, then one entry per line,
 * each as JSON.stringify writes it. JSON text never holds a raw newline, so the API's Lua
 * script finds a page by its newlines and decodes only the entries on it, not the whole list
 * (decoding every entry of a 100-entry list was most of Redis's time per request).
 * pipeline/serving/list-publisher.ts writes the same bytes from ClickHouse.
 */
export function encodeServedList(list: ServedList): string {
  const header: ServedListHeader = { m: list.m, n: list.e.length };
  return [JSON.stringify(header), ...list.e.map((entry) => JSON.stringify(entry))].join('\n');
}

/** The first line of a stored list: whether ClickHouse holds more, and how many entries follow. */
const servedListHeaderSchema = z.object({ m: servedListSchema.shape.m, n: z.number().int() });
type ServedListHeader = z.infer<typeof servedListHeaderSchema>;

export function decodeServedList(text: string): ServedList {
  const [header, ...lines] = text.split('\n');
  const { m, n } = servedListHeaderSchema.parse(JSON.parse(header!));
  const e = lines.map((line) => servedEntrySchema.parse(JSON.parse(line)));
  if (e.length !== n) throw new Error(`a stored list says it has ${n} entries but holds ${e.length}`);
  return { m, e };
}
