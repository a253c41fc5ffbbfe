/**
 * Reads one page of a caller's recommendations from the serving copy in Redis
 * (shared/serving.ts) in one round trip (two on a Redis Cluster): a Lua script
 * (api/recommend/served-page.lua) slices the stored list and looks up, in the same step, the
 * names of everyone on the page and whom of them the caller follows. The answer is data; the route encodes it as it encodes a page
 * read from ClickHouse (api/recommend/recommendation-list.ts).
 */
import { readFileSync } from 'node:fs';
import { Cluster } from 'ioredis';
import type { RedisClient } from '../../shared/redis.ts';
import { z } from 'zod';
import { decodeServedEntry, decodeServedListHeader, REASON_KINDS, servingKeys } from '../../shared/serving.ts';
import type { ProfileNames } from './recommendation-list.ts';
import type { RecommendationRow } from './recommendations.ts';

export interface ServedPage {
  /** The page's rows, at most `limit`, in rank order. */
  rows: RecommendationRow[];
  /** Names and avatars of the profiles the rows name, as far as the mirror knows them. */
  profiles: ProfileNames;
  /** Which of the page's candidates the caller follows now. */
  following: Set<string>;
  /** Whether the stored list has an entry after the page. */
  hasNext: boolean;
  /** How many entries the stored list has, and whether ClickHouse holds more than those. */
  stored: number;
  more: boolean;
}

export interface ServedLists {
  /** The page, or undefined when the serving copy has no list for this profile and snapshot. */
  page(snapshotId: number, profileId: string, after: number, limit: number): Promise<ServedPage | undefined>;
  /** Whether the list exists (the on-demand computation writes it). */
  exists(snapshotId: number, profileId: string): Promise<boolean>;
}

/** The script's answer (api/recommend/served-page.lua); a malformed one fails the request loudly. */
const scriptAnswer = z.tuple([z.string(), z.array(z.string()), z.array(z.string()), z.array(z.string().nullable()), z.array(z.string().nullable())]);

/** A profile summary as the mirror stores it: [updatedAt, name, avatar]. */
const storedSummary = z.tuple([z.number(), z.string().nullable(), z.string().nullable()]);

type RedisWithPage = RedisClient & { readServedPage(numberOfKeys: number, ...args: (string | number)[]): Promise<unknown> };

export function createServedLists(redis: RedisClient, config: Parameters<typeof servingKeys>[0]): ServedLists {
  const keys = servingKeys(config);
  const client = redis as RedisWithPage;
  client.defineCommand('readServedPage', { lua: readFileSync(new URL('./served-page.lua', import.meta.url), 'utf8') });

  /** One round trip: the script reads the list and both hashes (one server keeps every profile's summary in one hash). */
  const pageFromOneServer = async (snapshotId: number, profileId: string, after: number, limit: number) => {
    const answer = await client.readServedPage(3, keys.list(snapshotId, profileId), keys.profiles(profileId), keys.following(profileId), after, limit);
    return answer === null ? undefined : scriptAnswer.parse(answer);
  };
  /**
   * On a Redis Cluster the list and the hashes are in different slots, which one script may
   * not span: the list's page first, then the following hash and the page's profiles hashes
   * at once (two round trips).
   */
  const pageFromCluster = async (snapshotId: number, profileId: string, after: number, limit: number) => {
    const answer = await client.readServedPage(1, keys.list(snapshotId, profileId), after, limit);
    if (answer === null) return undefined;
    const [header, lines, ids] = scriptAnswer.parse(answer);
    const candidates = lines.slice(0, limit).map((line) => line.slice(0, line.indexOf('\t')));
    const [summaries, states] = await Promise.all([
      summariesOf(ids),
      candidates.length > 0 ? redis.hmget(keys.following(profileId), ...candidates) : [],
    ]);
    return [header, lines, ids, summaries, states] satisfies z.infer<typeof scriptAnswer>;
  };
  /** The ids' summaries in their order, one HMGET per profiles hash they are in. */
  const summariesOf = async (ids: readonly string[]): Promise<(string | null)[]> => {
    const byHash = new Map<string, number[]>();
    ids.forEach((id, i) => {
      const hash = keys.profiles(id);
      const at = byHash.get(hash);
      if (at) at.push(i);
      else byHash.set(hash, [i]);
    });
    const summaries: (string | null)[] = ids.map(() => null);
    await Promise.all(
      [...byHash].map(async ([hash, at]) => {
        const found = await redis.hmget(hash, ...at.map((i) => ids[i]!));
        at.forEach((i, j) => (summaries[i] = found[j] ?? null));
      }),
    );
    return summaries;
  };
  const readPage = redis instanceof Cluster ? pageFromCluster : pageFromOneServer;

  return {
    async page(snapshotId, profileId, after, limit) {
      const answer = await readPage(snapshotId, profileId, after, limit);
      return answer === undefined ? undefined : servedPage(answer, after, limit);
    },
    async exists(snapshotId, profileId) {
      return (await redis.exists(keys.list(snapshotId, profileId))) === 1;
    },
  };
}

function servedPage([header, lines, ids, summaries, states]: z.infer<typeof scriptAnswer>, after: number, limit: number): ServedPage {
  const rows = lines.slice(0, limit).map((line, i): RecommendationRow => {
    const rank = after + i + 1;
    try {
      const [candidate_id, kind, reason_chain_id, reason_subject] = decodeServedEntry(line);
      return { rank, candidate_id, reason_kind: REASON_KINDS[kind - 1]!, reason_chain_id, reason_subject };
    } catch (error) {
      throw new Error(`malformed entry at rank ${rank}`, { cause: error });
    }
  });
  const profiles: ProfileNames = new Map();
  ids.forEach((id, i) => {
    const summary = summaries[i];
    if (summary === null || summary === undefined) return;
    const [, name, avatar] = storedSummary.parse(JSON.parse(summary));
    profiles.set(id, { name: name ?? '', avatar: avatar ?? '' });
  });
  // A follow state's low bit is `active` (shared/serving.ts, followState).
  const following = new Set(rows.filter((_, i) => Number(states[i] ?? 0) % 2 === 1).map((r) => r.candidate_id));
  const { more, stored } = decodeServedListHeader(header);
  return { rows, profiles, following, hasNext: lines.length > limit, stored, more };
}
