/**
 * The candidates of one profile while its list is computed: each candidate gets a slot the
 * first time a source names it, and the slot holds its raw features (features.ts) and the
 * evidence its reason will name. One table per thread, reused for every profile: clearing
 * touches only the slots used, so a profile costs what its candidates cost, not the world.
 */
import { FEATURE_COUNT } from './features.ts';

const NONE = -1;

export class CandidateTable {
  /** Candidate profile -> slot, NONE when it has none. */
  private readonly slotOf: Int32Array;
  /** Profiles that may not be listed for the current profile (itself, whom it follows): stamp === epoch. */
  private readonly excludedAt: Uint32Array;
  private epoch = 0;
  size = 0;
  capacity: number;
  candidate: Uint32Array;
  /** Raw features, slot-major: features[slot * FEATURE_COUNT + feature]. */
  features: Float64Array;
  /** The best friend that links them (follows the candidate, and the profile follows it or is followed by it), NONE if none. */
  friend: Int32Array;
  /** 2: the profile follows the friend; 1: the friend follows the profile. */
  friendTie: Uint8Array;
  friendWeight: Float64Array;
  /** How many of the profile's followees (and followers it does not follow) follow the candidate. */
  friends: Uint32Array;
  /** The rarest collection both hold (NONE if none), and how many they share. */
  collection: Int32Array;
  collections: Uint32Array;
  /** The pair's transfers: the chain with the most weight (0 if none), their count and the newest one's time. */
  chain: Uint32Array;
  transfers: Uint32Array;
  lastTransfer: Uint32Array;

  constructor(nodes: number, capacity = 4096) {
    this.slotOf = new Int32Array(nodes).fill(NONE);
    this.excludedAt = new Uint32Array(nodes);
    this.capacity = capacity;
    this.candidate = new Uint32Array(capacity);
    this.features = new Float64Array(capacity * FEATURE_COUNT);
    this.friend = new Int32Array(capacity);
    this.friendTie = new Uint8Array(capacity);
    this.friendWeight = new Float64Array(capacity);
    this.friends = new Uint32Array(capacity);
    this.collection = new Int32Array(capacity);
    this.collections = new Uint32Array(capacity);
    this.chain = new Uint32Array(capacity);
    this.transfers = new Uint32Array(capacity);
    this.lastTransfer = new Uint32Array(capacity);
  }

  /** Starts a new profile's table: no candidates, nothing excluded. */
  reset(): void {
    for (let s = 0; s < this.size; s++) this.slotOf[this.candidate[s]!] = NONE;
    this.size = 0;
    this.epoch++;
    if (this.epoch === 0xffffffff) {
      this.excludedAt.fill(0);
      this.epoch = 1;
    }
  }

  exclude(profile: number): void {
    this.excludedAt[profile] = this.epoch;
  }

  isExcluded(profile: number): boolean {
    return this.excludedAt[profile] === this.epoch;
  }

  /** The candidate's slot, made on first use; NONE for an excluded profile. */
  slot(profile: number): number {
    const existing = this.slotOf[profile]!;
    if (existing !== NONE) return existing;
    if (this.excludedAt[profile] === this.epoch) return NONE;
    if (this.size === this.capacity) this.grow();
    const s = this.size++;
    this.slotOf[profile] = s;
    this.candidate[s] = profile;
    this.features.fill(0, s * FEATURE_COUNT, (s + 1) * FEATURE_COUNT);
    this.friend[s] = NONE;
    this.friendTie[s] = 0;
    this.friendWeight[s] = 0;
    this.friends[s] = 0;
    this.collection[s] = NONE;
    this.collections[s] = 0;
    this.chain[s] = 0;
    this.transfers[s] = 0;
    this.lastTransfer[s] = 0;
    return s;
  }

  /** The candidate's slot if it has one, else NONE (does not make one). */
  existingSlot(profile: number): number {
    return this.slotOf[profile]!;
  }

  add(slot: number, feature: number, value: number): void {
    this.features[slot * FEATURE_COUNT + feature]! += value;
  }

  set(slot: number, feature: number, value: number): void {
    this.features[slot * FEATURE_COUNT + feature] = value;
  }

  get(slot: number, feature: number): number {
    return this.features[slot * FEATURE_COUNT + feature]!;
  }

  /** Records a friend who links the profile to the candidate: a followee before a follower, then the one whose path weighs most (who follows fewest). */
  noteFriend(slot: number, friend: number, tie: 1 | 2, weight: number): void {
    this.friends[slot]!++;
    const held = this.friendTie[slot]!;
    if (tie > held || (tie === held && (weight > this.friendWeight[slot]! || (weight === this.friendWeight[slot]! && friend < this.friend[slot]!)))) {
      this.friend[slot] = friend;
      this.friendTie[slot] = tie;
      this.friendWeight[slot] = weight;
    }
  }

  private grow(): void {
    const capacity = this.capacity * 2;
    const grown = <T extends Uint32Array | Int32Array | Uint8Array | Float64Array>(array: T, per = 1): T => {
      const next = new (array.constructor as new (length: number) => T)(capacity * per);
      next.set(array);
      return next;
    };
    this.candidate = grown(this.candidate);
    this.features = grown(this.features, FEATURE_COUNT);
    this.friend = grown(this.friend);
    this.friendTie = grown(this.friendTie);
    this.friendWeight = grown(this.friendWeight);
    this.friends = grown(this.friends);
    this.collection = grown(this.collection);
    this.collections = grown(this.collections);
    this.chain = grown(this.chain);
    this.transfers = grown(this.transfers);
    this.lastTransfer = grown(this.lastTransfer);
    this.capacity = capacity;
  }
}

export const NO_SLOT = NONE;
