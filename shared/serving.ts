/**
 * The serving copy in Redis that answers GET /api/v1/recommend without a ClickHouse round
 * trip. ClickHouse stays the source of truth; the pipeline writes this copy, the API reads it.
 *
 *   <prefix>:serving:list:v3:<snapshot>:<profileId>  string  the first SERVING_DEPTH recommendations (encodeServedList)
 *   <prefix>:serving:profiles                     hash    profileId -> [updatedAt, name, avatar]  (newest wins)
 *   <prefix>:serving:profiles:<part>              the same, on a Redis Cluster: PROFILE_PARTS hashes (profilesPart)
 *   <prefix>:serving:following:<profileId>        hash    followeeId -> updatedAt * 2 + active     (newest wins)
 *   <prefix>:serving:mirror-sync                  hash    the nightly re-sync's progress (pipeline/serving/mirror-sync-state.ts)
 *   <prefix>:serving:mirror-sync:parts-<n>        the same, on a Redis Cluster
 *
 * `<prefix>` is QUEUE_PREFIX without a hash tag's braces. On a Redis Cluster each key lands
 * in the slot its whole name hashes to, so that the copy spreads over the masters: the
 * profiles mirror too, split there by a hash of the profile id (one hash of 100 M profiles
 * would be ~10 GB on one master). On one server it stays one hash, which the API's script
 * reads in the same round trip as the list.
 *
 * Lists expire (SERVING_LIST_TTL_SECONDS); a missing list is recomputed or re-read from
 * ClickHouse on demand. The two mirrors are written through by the profiles and follows
 * workers and re-synced from ClickHouse by every nightly run (the rows ingested since the
 * last re-sync; every row when Redis lost the mirror-sync hash, and once a week).
 */
import { z } from 'zod';
import { cell, tabSeparatedCells } from './clickhouse/tab-separated.ts';
import { servingCopyOnCluster, type Config } from './config.ts';

export interface ServingKeys {
  list(snapshotId: number, profileId: string): string;
  /** The hash holding this profile's summary: the same one for every profile on one server. */
  profiles(profileId: string): string;
  following(profileId: string): string;
  readonly mirrorSync: string;
}

/**
 * The stored lists' format (encodeServedList), part of their keys: a deployment that changes
 * it reads none of the lists an older version stored (they expire with their TTL). Until the
 * next nightly run republishes them, a caller whose list is missing gets it republished from
 * the snapshot by the on-demand job (pipeline/materialize/run/on-demand-lists.ts), as a new user does.
 * v1 was JSON, one object per list; v2 JSON, one entry per line; v3 TabSeparated; v4 the
 * same with the reason kinds 5-7 (follows you, popular, network: migration 057).
 */
export const SERVED_LIST_FORMAT = 'v4';

/**
 * How many hashes the profiles mirror is split into on a Redis Cluster: at 100 M profiles
 * about 100 k fields (10 MB) each, small enough to move between masters when the cluster is
 * resharded, and enough of them to spread evenly over tens of masters.
 */
export const PROFILE_PARTS = 1024;

/** Which of the PROFILE_PARTS hashes holds a profile's summary (32-bit FNV-1a of the id's UTF-8). */
export function profilesPart(profileId: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(profileId, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash % PROFILE_PARTS;
}

export function servingKeys(config: Pick<Config, 'QUEUE_PREFIX' | 'SERVING_REDIS_URL'> & Partial<Pick<Config, 'REDIS_CLUSTER_NODES'>>): ServingKeys {
  // Without the queues' hash tag ({soulgraph} on a Redis Cluster, shared/config.ts): every key
  // then hashes whole, so that lists and hashes spread over the cluster's masters.
  // No script reads two of them on a cluster (api/recommend/served-lists.ts).
  const base = `${config.QUEUE_PREFIX.replace(/[{}]/g, '')}:serving`;
  const parts = servingCopyOnCluster(config) ? PROFILE_PARTS : 1;
  return {
    list: (snapshotId, profileId) => `${base}:list:${SERVED_LIST_FORMAT}:${snapshotId}:${profileId}`,
    profiles: parts === 1 ? () => `${base}:profiles` : (profileId) => `${base}:profiles:${profilesPart(profileId)}`,
    following: (profileId) => `${base}:following:${profileId}`,
    // Named for the split: a copy written as one hash (before the split) or in another number
    // of parts has no re-sync state under this name, so the next nightly run re-syncs every
    // profile into the hashes read now.
    mirrorSync: parts === 1 ? `${base}:mirror-sync` : `${base}:mirror-sync:parts-${parts}`,
  };
}

/** One recommendation: [candidateId, reasonKind (1..7, REASON_KINDS), reasonChainId, reasonSubject]. */
export type ServedEntry = [candidateId: string, reasonKind: number, reasonChainId: number, reasonSubject: string];

/** A stored entry line: a profile id (an identifier, shared/records/fields.ts), a kind 1-7, a chain id, then the subject (any text, escaped). */
const storedEntryLine = z.string().regex(/^[A-Za-z0-9_.:@-]+\t[1-7]\t\d+\t[^\t]*$/, 'not a stored entry');

/** A profile's list: its best entries in rank order, and whether ClickHouse holds more (`m` = 1). */
export interface ServedList {
  m: 0 | 1;
  e: ServedEntry[];
}

/** Reason kinds as the recommendations table numbers them (1 is social): the interface's four, then the engine's three (migration 057). */
export const REASON_KINDS = ['social', 'counterparty', 'nft', 'friend_of_friend', 'follows_you', 'popular', 'network'] as const;
export type ReasonKind = (typeof REASON_KINDS)[number];

/** The mirror's encoding of a follow state: newer states compare greater; the low bit is `active`. */
export function followState(updatedAt: number, active: boolean): number {
  return updatedAt * 2 + (active ? 1 : 0);
}

/**
 * How a list is stored: data in ClickHouse's TabSeparated format, a header line
 * `<m>\t<entries>`, then one entry per line, `candidateId\tkind\tchainId\tsubject`.
 * TabSeparated text never holds a raw newline, so the API's script finds a page by its
 * newlines without reading the rest; ClickHouse writes entries in this format itself
 * (pipeline/serving/list-publisher.ts), and shared/clickhouse/tab-separated.ts reads them.
 * Profile ids are identifiers (shared/records/fields.ts), which the format holds as they
 * are: the script looks them up without decoding anything.
 */
export function encodeServedList(list: ServedList): string {
  return servedListText(list.m === 1, list.e.map((entry) => entry.map((part) => cell(part)).join('\t')));
}

/** A stored list from its entry lines, each already in the format (ClickHouse writes them too). */
export function servedListText(more: boolean, entryLines: readonly string[]): string {
  return [`${more ? 1 : 0}\t${entryLines.length}`, ...entryLines].join('\n');
}

const storedListHeader = z.string().regex(/^[01]\t\d+$/, 'not a stored list header');

/** A stored list's first line: whether ClickHouse holds more, and how many entries follow. */
export function decodeServedListHeader(line: string): { more: boolean; stored: number } {
  const [m, n] = storedListHeader.parse(line).split('\t');
  return { more: m === '1', stored: Number(n) };
}

/** One stored entry line; throws on anything else. */
export function decodeServedEntry(line: string): ServedEntry {
  const [candidateId, kind, chainId, subject] = tabSeparatedCells(storedEntryLine.parse(line));
  return [candidateId!, Number(kind), Number(chainId), subject!];
}

export function decodeServedList(text: string): ServedList {
  const [header, ...lines] = text.split('\n');
  const { more, stored } = decodeServedListHeader(header!);
  const e = lines.map(decodeServedEntry);
  if (e.length !== stored) throw new Error(`a stored list says it has ${stored} entries but holds ${e.length}`);
  return { m: more ? 1 : 0, e };
}
