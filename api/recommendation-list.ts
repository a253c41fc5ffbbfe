/**
 * A recommend page's `list`, as the response carries it. Two places write it: this module,
 * from ClickHouse rows (pages deeper than the serving copy), and the serving copy's Lua
 * script in Redis (api/served-lists.ts), which answers the list already encoded so that the
 * API neither parses nor re-encodes the common page. Both must send the same bytes for the
 * same rows; test/integration/served-lists.test.ts holds them to it.
 */
import { chainName, type Config } from '../shared/config.ts';
import type { ProfileSummary } from './profile-lookup.ts';
import type { RecommendationRow } from './recommendations.ts';

/** What the reason forms read from config; the serving script gets the same values. */
export type ReasonSettings = Pick<Config, 'SOCIAL_NETWORK_NAME' | 'CHAIN_NAMES'>;

/** The four reason forms, exactly as the interface states them. */
function reasonText(settings: ReasonSettings, row: RecommendationRow, profiles: Map<string, Pick<ProfileSummary, 'name'>>): string {
  switch (row.reason_kind) {
    case 'social':
      return socialReason(settings);
    case 'counterparty':
      return counterpartyReason(settings, row.reason_chain_id);
    case 'nft':
      return `Holder of ${row.reason_subject}`;
    case 'friend_of_friend':
      return `Followed by ${profiles.get(row.reason_subject)?.name || row.reason_subject}`;
  }
}

/** The two forms that depend only on config (the serving script gets them ready-made). */
export function socialReason(settings: ReasonSettings): string {
  return `Following on ${settings.SOCIAL_NETWORK_NAME}`;
}

export function counterpartyReason(settings: ReasonSettings, chainId: number): string {
  return `Counterparty on ${chainName(settings, chainId)}`;
}

/** The list's JSON text: RecommendUser objects, their keys in the schema's order. */
export function encodeRecommendationList(
  settings: ReasonSettings,
  rows: RecommendationRow[],
  profiles: Map<string, Pick<ProfileSummary, 'name' | 'avatar'>>,
  following: Set<string>,
): string {
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
