/** GET /api/v1/recommend: one page of the caller's recommendations. */
import type { Router } from 'express';
import type { Guards } from '../common/endpoints.ts';
import { z } from 'zod';
import type { Config } from '../../shared/config.ts';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import type { CursorCodec } from './cursor.ts';
import { ApiError, envelopeSchema, sendEncodedSuccess } from '../common/envelope.ts';
import { profileSummaries } from '../common/profile-lookup.ts';
import { followedAmong, cachedNewestSnapshot, isReadySnapshot, recommendationsAfter, type RecommendationRow } from './recommendations.ts';
import { encodeRecommendationList, type ProfileNames } from './recommendation-list.ts';
import { parseQuery } from '../common/request-validation.ts';
import type { Caller } from '../auth/unified-auth.ts';
import type { OnDemandLists } from './on-demand-lists.ts';
import type { ServedLists } from './served-lists.ts';

export const recommendQuery = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number from 1 to 100')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be a whole number from 1 to 100').max(100, 'must be a whole number from 1 to 100'))
    .optional()
    .meta({ description: 'Page size, 1 to 100 (default 20)', example: '20' }),
  cursor: z
    .string()
    .max(512)
    .optional()
    .meta({ description: 'The cursor of the previous page; empty or absent for the first page' }),
});

export const recommendUser = z
  .object({
    profileId: z.string(),
    name: z.string(),
    avatar: z.string(),
    recommendReason: z.string().meta({ example: 'Following on Twitter' }),
    following: z.boolean().meta({ description: 'Whether the caller follows this user now' }),
  })
  .meta({ id: 'RecommendUser' });

export const recommendResponse = envelopeSchema(
  z
    .object({
      cursor: z.string().meta({ description: 'Pass it back for the next page; "" when there is no more' }),
      list: z.array(recommendUser),
    })
    .meta({ id: 'RecommendResponse' }),
);

export const DEFAULT_LIMIT = 20;

export interface RecommendDeps {
  config: Config;
  ch: ClickHouse;
  cursors: CursorCodec;
  served: ServedLists;
  onDemand: OnDemandLists;
}

/**
 * Registers on `router`: the app's own router (app.router) in createApp, so that a request
 * crosses no nested router on its way to the handler.
 */
export function recommendRoute(deps: RecommendDeps, before: Guards, router: Router): Router {
  const newestSnapshot = cachedNewestSnapshot(deps.ch, deps.config.SNAPSHOT_CACHE_SECONDS * 1000);
  return router.get('/api/v1/recommend', ...before('recommend'), async (req, res) => {
    const query = parseQuery(recommendQuery, req.query);
    const caller = res.locals.caller as Caller;
    const page = await recommendationPage(deps, newestSnapshot, caller.profileId, query.limit ?? DEFAULT_LIMIT, query.cursor);
    sendEncodedSuccess(res, `{"cursor":${JSON.stringify(page.cursor)},"list":${page.list}}`);
  });
}

/** One page's rows, with what its encoding needs, whichever store they came from. */
interface PageRows {
  rows: RecommendationRow[];
  profiles: ProfileNames;
  following: Set<string>;
  /** The rank of the page's last entry, when rows exist after it; undefined on the last page. */
  nextAfter: number | undefined;
}

async function recommendationPage(
  deps: RecommendDeps,
  newestSnapshot: () => Promise<number | undefined>,
  profileId: string,
  limit: number,
  cursor: string | undefined,
): Promise<{ cursor: string; list: string }> {
  const position = cursor ? deps.cursors.decode(cursor, profileId) : undefined;
  const newest = await newestSnapshot();
  const snapshotId = position?.snapshotId ?? newest;
  if (snapshotId === undefined) return { cursor: '', list: '[]' };
  // A cursor from before a swap may point at a snapshot that retention has dropped since.
  if (position && snapshotId !== newest && !(await isReadySnapshot(deps.ch, snapshotId))) throw new ApiError('cursorExpired');

  const { rows, profiles, following, nextAfter } = await pageRows(deps, snapshotId, profileId, position?.afterRank ?? 0, limit);
  return {
    cursor: nextAfter === undefined ? '' : deps.cursors.encode({ snapshotId, profileId, afterRank: nextAfter }),
    list: encodeRecommendationList(deps.config, rows, profiles, following),
  };
}

/**
 * The serving copy in Redis answers the first SERVING_DEPTH ranks; deeper pages come from
 * ClickHouse. A caller without a list (newer than the snapshot) gets one computed on demand.
 */
async function pageRows(deps: RecommendDeps, snapshotId: number, profileId: string, afterRank: number, limit: number): Promise<PageRows> {
  let page = await deps.served.page(snapshotId, profileId, afterRank, limit);
  if (!page) {
    const ready = await deps.onDemand.request(snapshotId, profileId);
    page = ready ? await deps.served.page(snapshotId, profileId, afterRank, limit) : undefined;
    if (!page) throw new ApiError('recommendationsPending', undefined, { 'Retry-After': '2' });
  }
  // The page (and the one entry after it that tells whether another page exists) reaches
  // past the stored entries, and ClickHouse holds more.
  if (page.more && afterRank + limit + 1 > page.stored) return pageFromClickHouse(deps, snapshotId, profileId, afterRank, limit);
  const { rows, profiles, following } = page;
  return { rows, profiles, following, nextAfter: page.hasNext ? rows.at(-1)?.rank : undefined };
}

async function pageFromClickHouse(deps: RecommendDeps, snapshotId: number, profileId: string, afterRank: number, limit: number): Promise<PageRows> {
  // One row more than asked tells whether another page exists.
  const found = await recommendationsAfter(deps.ch, snapshotId, profileId, afterRank, limit + 1);
  const rows = found.slice(0, limit);
  const candidates = rows.map((r) => r.candidate_id);
  const friends = rows.filter((r) => r.reason_kind === 'friend_of_friend').map((r) => r.reason_subject);
  const [profiles, following] = await Promise.all([profileSummaries(deps.ch, [...candidates, ...friends]), followedAmong(deps.ch, profileId, candidates)]);
  return { rows, profiles, following, nextAfter: found.length > limit ? rows.at(-1)?.rank : undefined };
}
