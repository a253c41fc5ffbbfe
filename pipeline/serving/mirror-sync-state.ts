/**
 * Where the nightly re-sync of the mirrors stands, kept in the serving keyspace itself
 * (`<prefix>:serving:mirror-sync`, a hash), so that it is lost exactly when the mirrors are:
 *
 *   watermark  unix seconds: the next re-sync copies the rows ingested from here on (less a margin)
 *   full_at    when the last complete full re-sync started
 *   running    the token of the re-sync in progress
 *
 * A re-sync begins by reading the hash and setting `running` in one step, and commits only
 * if `running` still holds its token. Had Redis been flushed in between, the hash and the
 * token are gone: nothing is committed, and the next run copies every row again.
 */
import type { RedisClient } from '../../shared/redis.ts';
import { z } from 'zod';

/** What the last complete re-sync left (absent: there was none, or Redis lost it). */
export const mirrorSyncStateSchema = z.object({
  watermark: z.coerce.number().int().min(0),
  fullAt: z.coerce.number().int().min(0),
});
export type MirrorSyncState = z.infer<typeof mirrorSyncStateSchema>;

/** KEYS[1]: the hash. ARGV[1]: this re-sync's token. Returns [watermark, full_at] as stored (nil when absent). */
const BEGIN = `
local state = redis.call('HMGET', KEYS[1], 'watermark', 'full_at')
redis.call('HSET', KEYS[1], 'running', ARGV[1])
return state`;

/** KEYS[1]: the hash. ARGV: token, watermark, full_at. Returns 1 if committed, 0 if the hash lost the token. */
const COMMIT = `
if redis.call('HGET', KEYS[1], 'running') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'watermark', ARGV[2], 'full_at', ARGV[3])
redis.call('HDEL', KEYS[1], 'running')
return 1`;

type RedisWithSyncScripts = RedisClient & {
  mirrorSyncBegin(key: string, token: string): Promise<[string | null, string | null]>;
  mirrorSyncCommit(key: string, token: string, watermark: number, fullAt: number): Promise<number>;
};

export interface MirrorSyncStateStore {
  /** Marks a re-sync as running under `token`; returns the last complete one's state. */
  begin(token: string): Promise<MirrorSyncState | undefined>;
  /** Records a complete re-sync, unless Redis lost the `running` token since begin (then false). */
  commit(token: string, state: MirrorSyncState): Promise<boolean>;
}

export function mirrorSyncStateStore(redis: RedisClient, key: string): MirrorSyncStateStore {
  const scripted = redis as RedisWithSyncScripts;
  scripted.defineCommand('mirrorSyncBegin', { numberOfKeys: 1, lua: BEGIN });
  scripted.defineCommand('mirrorSyncCommit', { numberOfKeys: 1, lua: COMMIT });
  return {
    async begin(token) {
      const [watermark, fullAt] = await scripted.mirrorSyncBegin(key, token);
      if (watermark === null || fullAt === null) return undefined;
      return mirrorSyncStateSchema.parse({ watermark, fullAt });
    },
    async commit(token, state) {
      return (await scripted.mirrorSyncCommit(key, token, state.watermark, state.fullAt)) === 1;
    },
  };
}
