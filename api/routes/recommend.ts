/** GET /api/v1/recommend: one page of the caller's recommendations. */
import type { Router } from 'express';
import type { Guards } from '../endpoints.ts';
import { z } from 'zod';
import { chainName, type Config } from '../../shared/config.ts';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import type { CursorCodec } from '../cursor.ts';
import { ApiError, envelopeSchema, success } from '../envelope.ts';
import { profileSummaries, type ProfileSummary } from '../profile-lookup.ts';
import {
  followedAmong,
  cachedNewestSnapshot,
  isReadySnapshot,
  recommendationsAfter,
  type RecommendationRow,
} from '../recommendations.ts';
import { admitted } from '../admission.ts';
import { parseQuery } from '../request-validation.ts';
import type { Caller } from '../middleware/unified-auth.ts';
import type { OnDemandLists } from '../on-demand-lists.ts';
import type { ServedLists } from '../served-lists.ts';
import { REASON_KINDS } from '../../shared/serving.ts';

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
    const admission = admitted(res);
    const page = await recommendationPage(deps, newestSnapshot, caller.profileId, query.limit ?? DEFAULT_LIMIT, query.cursor, admission);
    // Also when no page read was needed (no snapshot yet): never answer before the count.
    await admission;
    res.json(success(page));
  });
}

/** One page's rows, whichever store they came from. */
interface PageRows {
  rows: RecommendationRow[];
  /** Whether rows exist after the last one. */
  more: boolean;
  profiles: Map<string, Pick<ProfileSummary, 'name' | 'avatar'>>;
  following: Set<string>;
}

async function recommendationPage(
  deps: RecommendDeps,
  newestSnapshot: () => Promise<number | undefined>,
  profileId: string,
  limit: number,
  cursor: string | undefined,
  admission: Promise<void>,
) {
  const position = cursor ? deps.cursors.decode(cursor, profileId) : undefined;
  const newest = await newestSnapshot();
  const snapshotId = position?.snapshotId ?? newest;
  if (snapshotId === undefined) return { cursor: '', list: [] };
  // A cursor from before a swap may point at a snapshot that retention has dropped since.
  if (position && snapshotId !== newest && !(await isReadySnapshot(deps.ch, snapshotId))) throw new ApiError('cursorExpired');

  const afterRank = position?.afterRank ?? 0;
  const { rows, more, profiles, following } = await pageRows(deps, snapshotId, profileId, afterRank, limit, admission);
  const last = rows.at(-1);
  return {
    cursor: more && last ? deps.cursors.encode({ snapshotId, profileId, afterRank: last.rank }) : '',
    list: rows.map((r) => {
      const profile = profiles.get(r.candidate_id);
      return {
        profileId: r.candidate_id,
        name: profile?.name ?? '',
        avatar: profile?.avatar ?? '',
        recommendReason: reasonText(deps.config, r, profiles),
        following: following.has(r.candidate_id),
      };
    }),
  };
}

/**
 * The serving copy in Redis answers the first SERVING_DEPTH ranks; deeper pages come from
 * ClickHouse. A caller without a list (newer than the snapshot) gets one computed on demand.
 * The first read goes out with the request's rate-limit count (api/admission.ts), and
 * nothing further happens until the request is admitted.
 */
async function pageRows(
  deps: RecommendDeps,
  snapshotId: number,
  profileId: string,
  afterRank: number,
  limit: number,
  admission: Promise<void>,
): Promise<PageRows> {
  // One entry more than asked tells whether another page exists.
  let [page] = await Promise.all([deps.served.page(snapshotId, profileId, afterRank, limit + 1), admission]);
  if (!page) {
    const ready = await deps.onDemand.request(snapshotId, profileId);
    page = ready ? await deps.served.page(snapshotId, profileId, afterRank, limit + 1) : undefined;
    if (!page) throw new ApiError('recommendationsPending', undefined, { 'Retry-After': '2' });
  }
  if (page.more && afterRank + limit + 1 > page.stored) return pageFromClickHouse(deps.ch, snapshotId, profileId, afterRank, limit);
  const rows = page.entries.slice(0, limit).map(([candidate_id, kind, reason_chain_id, reason_subject], i) => ({
    rank: afterRank + i + 1,
    candidate_id,
    reason_kind: REASON_KINDS[kind - 1]!,
    reason_chain_id,
    reason_subject,
  }));
  return { rows, more: page.entries.length > limit, profiles: page.names, following: page.following };
}

async function pageFromClickHouse(ch: ClickHouse, snapshotId: number, profileId: string, afterRank: number, limit: number): Promise<PageRows> {
  const found = await recommendationsAfter(ch, snapshotId, profileId, afterRank, limit + 1);
  const rows = found.slice(0, limit);
  const candidates = rows.map((r) => r.candidate_id);
  const friends = rows.filter((r) => r.reason_kind === 'friend_of_friend').map((r) => r.reason_subject);
  const [profiles, following] = await Promise.all([profileSummaries(ch, [...candidates, ...friends]), followedAmong(ch, profileId, candidates)]);
  return { rows, more: found.length > limit, profiles, following };
}

/** The four reason forms, exactly as the interface states them. */
export function reasonText(config: Config, row: RecommendationRow, profiles: Map<string, Pick<ProfileSummary, 'name'>>): string {
  switch (row.reason_kind) {
    case 'social':
      return `Following on ${config.SOCIAL_NETWORK_NAME}`;
    case 'counterparty':
      return `Counterparty on ${chainName(config, row.reason_chain_id)}`;
    case 'nft':
      return `Holder of ${row.reason_subject}`;
    case 'friend_of_friend':
      return `Followed by ${profiles.get(row.reason_subject)?.name || row.reason_subject}`;
  }
}
