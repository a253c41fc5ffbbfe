/**
 * A recommend page's `list`, as the response carries it: the one place that writes a
 * RecommendUser and words its reason, whichever store the page's rows came from (the
 * serving copy in Redis, api/recommend/served-lists.ts, or ClickHouse for deeper pages).
 */
import { chainName, type Config } from '../../shared/config.ts';
import type { ProfileSummary } from '../common/profile-lookup.ts';
import type { RecommendationRow } from './recommendations.ts';

/** What the reason forms read from config. */
export type ReasonSettings = Pick<Config, 'SOCIAL_NETWORK_NAME' | 'CHAIN_NAMES'>;

/** Name and avatar by profile id, for the profiles a page names ('' when unknown). */
export type ProfileNames = Map<string, Pick<ProfileSummary, 'name' | 'avatar'>>;

/**
 * The interface's four reason forms, exactly as it states them, and the engine's three for a
 * candidate none of the four is true of (docs/api.md): one who follows the caller and whom no
 * friend links to it, one of the most followed filling the list, and one linked only by walks
 * and paths no other form names.
 */
function reasonText(settings: ReasonSettings, row: RecommendationRow, profiles: ProfileNames): string {
  switch (row.reason_kind) {
    case 'follows_you':
      return 'Follows you';
    case 'popular':
      return 'Popular';
    case 'network':
      return 'In your network';
    case 'social':
      return `Following on ${settings.SOCIAL_NETWORK_NAME}`;
    case 'counterparty':
      return `Counterparty on ${chainName(settings, row.reason_chain_id)}`;
    case 'nft':
      return `Holder of ${row.reason_subject}`;
    case 'friend_of_friend':
      return `Followed by ${profiles.get(row.reason_subject)?.name || row.reason_subject}`;
  }
}

/** The list's JSON text: RecommendUser objects, their keys in the schema's order. */
export function encodeRecommendationList(settings: ReasonSettings, rows: RecommendationRow[], profiles: ProfileNames, following: Set<string>): string {
  return JSON.stringify(
    rows.map((r) => {
      const profile = profiles.get(r.candidate_id);
      return {
        profileId: r.candidate_id,
        name: profile?.name ?? '',
        avatar: profile?.avatar ?? '',
        recommendReason: reasonText(settings, r, profiles),
        following: following.has(r.candidate_id),
      };
    }),
  );
}
