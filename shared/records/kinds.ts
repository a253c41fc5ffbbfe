/** Every kind of record the pipeline ingests, by the name used on the CLI and in queue names. */
import { addressLabelsKind, tokenTransfersKind, transactionsKind } from './chain-activity.ts';
import { followsKind, socialFollowsKind } from './follows.ts';
import { invitesKind } from './invites.ts';
import { nftCollectionsKind, nftTransfersKind } from './nfts.ts';
import { profilesKind } from './profiles.ts';
import { sbtIssuersKind, sbtMintsKind } from './sbts.ts';

export const recordKinds = {
  profiles: profilesKind,
  'social-follows': socialFollowsKind,
  follows: followsKind,
  transactions: transactionsKind,
  'token-transfers': tokenTransfersKind,
  'address-labels': addressLabelsKind,
  'nft-transfers': nftTransfersKind,
  'nft-collections': nftCollectionsKind,
  'sbt-mints': sbtMintsKind,
  'sbt-issuers': sbtIssuersKind,
  invites: invitesKind,
} as const;

export type KindName = keyof typeof recordKinds;
export const kindNames = Object.keys(recordKinds) as KindName[];

export function isKindName(name: string): name is KindName {
  return Object.hasOwn(recordKinds, name);
}
