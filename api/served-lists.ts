/**
 * Reads one page of a caller's recommendations from the serving copy in Redis
 * (shared/serving.ts) in one round trip: a Lua script (api/served-page.lua) slices the
 * stored list, looks up in the same step the names of everyone on the page and whom of them
 * the caller follows, and answers the page's `list` as the response sends it. The API
 * splices those bytes into the envelope: it neither parses nor re-encodes the page.
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { Config } from '../shared/config.ts';
import { servingKeys } from '../shared/serving.ts';
import { counterpartyReason, socialReason, type ReasonSettings } from './recommendation-list.ts';

export interface ServedPage {
  /** The page's `list`: the JSON text of an array of RecommendUser, at most `limit` entries. */
  list: string;
  /** How many entries `list` holds. */
  size: number;
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

// A string reply, not a Buffer: a 4 KB Buffer per request is an external allocation that
// made the API's scavenges several times longer (bench:api, 2026-11-25 evening).
type RedisWithPage = Redis & { readServedPage(...args: (string | number)[]): Promise<string | null> };

export function createServedLists(redis: Redis, config: Pick<Config, 'QUEUE_PREFIX'> & ReasonSettings): ServedLists {
  const keys = servingKeys(config.QUEUE_PREFIX);
  const client = redis as RedisWithPage;
  client.defineCommand('readServedPage', { numberOfKeys: 3, lua: readFileSync(new URL('./served-page.lua', import.meta.url), 'utf8') });
  const reasons = reasonArguments(config);
  return {
    async page(snapshotId, profileId, after, limit) {
      const answer = await client.readServedPage(keys.list(snapshotId, profileId), keys.profiles, keys.following(profileId), after, limit, ...reasons);
      return answer === null ? undefined : servedPage(answer, limit);
    },
    async exists(snapshotId, profileId) {
      return (await redis.exists(keys.list(snapshotId, profileId))) === 1;
    },
  };
}

/**
 * The script's ARGV after `after` and `limit`: the reasons that come from config, as the JSON
 * strings the list carries (the social one, then each chain's id and counterparty reason).
 */
function reasonArguments(settings: ReasonSettings): string[] {
  const chains = [...settings.CHAIN_NAMES.keys()].flatMap((id) => [String(id), JSON.stringify(counterpartyReason(settings, id))]);
  return [JSON.stringify(socialReason(settings)), ...chains];
}

/** Splits the script's answer, "<m> <n> <read>\n" then the list; throws on anything else. */
export function servedPage(answer: string, limit: number): ServedPage {
  const newline = answer.indexOf('\n');
  const status = newline > 0 ? /^([01]) (\d+) (\d+)$/.exec(answer.slice(0, newline)) : null;
  const list = answer.slice(newline + 1);
  if (!status || !list.startsWith('[') || !list.endsWith(']')) throw new Error('the serving copy answered a malformed page');
  const read = Number(status[3]);
  return { list, size: Math.min(read, limit), hasNext: read > limit, stored: Number(status[2]), more: status[1] === '1' };
}
