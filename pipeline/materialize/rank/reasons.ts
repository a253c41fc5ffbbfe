/**
 * Why a candidate is on a list: of the signals that speak for it, the one whose part of the
 * score is largest. Each reason is a true statement about the data:
 *
 * - followed_by z: z follows the candidate, and the profile follows z (preferred) or z
 *   follows the profile (rank/candidate-table.ts, noteFriend);
 * - follows_you: the candidate follows the profile;
 * - nft: both hold a token of the collection (the rarest they share);
 * - counterparty: their addresses transferred on the chain (the one with most weight);
 * - social: the profile's handle follows the candidate's;
 * - popular: the filler, among the most followed profiles (ranker.ts);
 * - network: only walks and paths no other reason names link them (both follow someone,
 *   or the candidate follows someone who follows the profile, or a walk of more steps).
 */
import { NO_SLOT, type CandidateTable } from './candidate-table.ts';
import { F, FEATURE_COUNT, transformed } from './features.ts';

/** Reason kinds as the recommendations table numbers them (migration 057). */
export const REASON = {
  social: 1,
  counterparty: 2,
  nft: 3,
  followed_by: 4,
  follows_you: 5,
  popular: 6,
  network: 7,
} as const;
export type ReasonKind = (typeof REASON)[keyof typeof REASON];

/** Where reasonOf writes a list entry's reason and score parts (RankedList's arrays, at one index). */
export interface ReasonColumns {
  kind: Uint8Array;
  /** The friend (a profile) of followed_by, the collection of nft; -1 otherwise. */
  subject: Int32Array;
  /** The chain of counterparty; 0 otherwise. */
  chainId: Uint32Array;
  /** The weighted part of the score from the social, counterparty and NFT signals, and from the follow graph (everything else). */
  social: Float64Array;
  counterparty: Float64Array;
  nft: Float64Array;
  graph: Float64Array;
}

/** The slot's reason and how its score splits into the signals' parts, written at `at`. */
export function reasonOf(table: CandidateTable, slot: number, weights: readonly number[], out: ReasonColumns, at: number): void {
  const base = slot * FEATURE_COUNT;
  const raw = table.features;
  let social = 0;
  let counterparty = 0;
  let nft = 0;
  let graph = 0;
  let friends = 0;
  let follows = 0;
  for (let f = 0; f < FEATURE_COUNT; f++) {
    const value = raw[base + f]!;
    if (value === 0) continue;
    const part = weights[f]! * transformed(f, value);
    if (f === F.social) social = part;
    else if (f === F.counterparty) counterparty = part;
    else if (f === F.nft) nft = part;
    else {
      graph += part;
      if (f === F.followee_follows || f === F.follower_follows || f === F.recent_paths) friends += part;
      else if (f === F.follows_you || f === F.new_follower) follows += part;
    }
  }
  out.social[at] = social;
  out.counterparty[at] = counterparty;
  out.nft[at] = nft;
  out.graph[at] = graph;
  // Of the signals with evidence, the strongest part; on equal parts the earlier one here
  // (the friend first, as the interface's first example).
  let kind: ReasonKind = REASON.network;
  let strongest = -Infinity;
  let subject = -1;
  let chainId = 0;
  const friend = table.friend[slot]!;
  if (friend !== NO_SLOT) {
    kind = REASON.followed_by;
    strongest = friends;
    subject = friend;
  }
  if (raw[base + F.follows_you]! > 0 && follows > strongest) {
    kind = REASON.follows_you;
    strongest = follows;
    subject = -1;
  }
  const collection = table.collection[slot]!;
  if (collection !== NO_SLOT && nft > strongest) {
    kind = REASON.nft;
    strongest = nft;
    subject = collection;
  }
  if (raw[base + F.counterparty]! > 0 && counterparty > strongest) {
    kind = REASON.counterparty;
    strongest = counterparty;
    subject = -1;
    chainId = table.chain[slot]!;
  }
  if (raw[base + F.social]! > 0 && social > strongest) {
    kind = REASON.social;
    subject = -1;
    chainId = 0;
  }
  out.kind[at] = kind;
  out.subject[at] = subject;
  out.chainId[at] = kind === REASON.counterparty ? chainId : 0;
}
