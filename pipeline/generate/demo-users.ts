/**
 * Demo users: a few profiles of the demo world whose wallet keys are known, so that a
 * newcomer can sign in as someone with a history (docs/api.md). Demo-only: their private
 * keys are printed and documented, so they must never hold anything real, and `soulgraph
 * start` leaves them out in production.
 *
 * Every piece of their evidence is unambiguous, so that each recommendation's reason does
 * not depend on how the signals are weighed or ranked: each world profile recommended to a
 * demo user is related to them by exactly one signal. The world profiles they touch are
 * picked so: the friends (followed in the app) first, then everything their friends follow
 * is set aside, then the social follows, counterparties and NFT co-holders come from the
 * profiles left, each used once.
 *
 * Ada, the first, follows only Grace, and only Alan follows her: her friends of friends are
 * exactly Grace's and Alan's followees, so her whole list is known (docs/api.md shows it). Grace and Alan also follow world
 * profiles, and get those profiles' followees as friends of friends too.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { CHAIN_END, DAY, blockNumberAt, isoTime } from './chain-clock.ts';
import { idDomain } from './hex-ids.ts';
import { hasHandle, handleOf, profileIdOf } from './identities.ts';
import type { KindSource } from './kind-source.ts';
import { ZERO_ADDRESS } from './known-addresses.ts';
import { rngFor, streamKey } from './random.ts';
import { sbtIssuers, sbtMintRecord } from './sbts.ts';
import { appFollowSource } from './social-graph.ts';
import { addressOf } from './wallets.ts';
import type { World } from './world.ts';

export interface DemoUser {
  /** Short name, used on the command line (`soulgraph demo --user ada`). */
  readonly key: string;
  readonly name: string;
  readonly profileId: string;
  readonly socialUsername: string;
  readonly gamePlatformId: string;
  /** 0x + 64 hex; public knowledge, never a real wallet. */
  readonly privateKey: string;
  /** The EIP-55 checksummed address (as a wallet shows it). */
  readonly address: string;
  /** The NFT collection only they and their co-holders hold. */
  readonly collection: string;
}

const IDENTITIES = [
  { key: 'ada', name: 'Ada Demo', collection: 'Analytical Engines' },
  { key: 'grace', name: 'Grace Demo', collection: 'Harvard Relays' },
  { key: 'alan', name: 'Alan Demo', collection: 'Enigma Rotors' },
] as const;

/** Indexes of demo units in id spaces (transaction hashes, contracts): above any world profile (MAX_PROFILES). */
const DEMO_UNIT = 0xde00_0000;
/** SBT token ids above any the world mints (profile * 16 + mint, profile < 100,000,000). */
const DEMO_TOKEN_BASE = 1_600_000_000;
const FRIENDS = 3;
const SOCIAL_FOLLOWS = 3;
const COUNTERPARTIES = 2;
const CO_HOLDERS = 3;
const SBTS = 3;
const STREAM = streamKey('demo-users');

/** The demo users and their wallets; the same in every world. */
export function demoUsers(): DemoUser[] {
  return IDENTITIES.map(({ key, name, collection }) => {
    const privateKey = keccak_256(utf8ToBytes(`soulgraph demo wallet: ${key}`));
    return {
      key,
      name,
      profileId: `p_demo_${key}`,
      socialUsername: `demo_${key}`,
      gamePlatformId: `epic:demo-${key}`,
      privateKey: `0x${bytesToHex(privateKey)}`,
      address: checksummed(addressOfKey(privateKey)),
      collection,
    };
  });
}

/** Whom each demo user is related to, as world profile indexes (demo user i at position i). */
export interface DemoPlan {
  readonly users: DemoUser[];
  /** World profiles each follows in the app (Ada none: she follows Grace only). */
  readonly friends: number[][];
  readonly socialFollows: number[][];
  readonly counterparties: number[][];
  readonly coHolders: number[][];
}

export function demoPlan(world: World): DemoPlan {
  const users = demoUsers();
  const friendPool = profilesFollowingAtLeast(world, 2);
  const friends = users.map((_, i) => (i === 0 ? [] : take(friendPool, FRIENDS, () => true)));
  const friendIds = new Set(friends.flat().map((p) => profileIdOf(world, p)));
  const setAside = new Set([...friends.flat(), ...followeesOf(world, friendIds)]);
  const free = function* (): Generator<number> {
    for (let p = 0; p < world.profiles; p++) if (!setAside.has(p)) yield p;
  };
  const pool = free();
  const plan = {
    users,
    friends,
    socialFollows: users.map(() => take(pool, SOCIAL_FOLLOWS, (p) => hasHandle(world, p))),
    counterparties: users.map(() => take(pool, COUNTERPARTIES, () => true)),
    coHolders: users.map(() => take(pool, CO_HOLDERS, () => true)),
  };
  const needed = users.length * (SOCIAL_FOLLOWS + COUNTERPARTIES + CO_HOLDERS) + (users.length - 1) * FRIENDS;
  const got = [plan.friends, plan.socialFollows, plan.counterparties, plan.coHolders].flat(2).length;
  if (got < needed) throw new RangeError(`a world of ${world.profiles} profiles is too small for the demo users`);
  return plan;
}

/** The demo users' records of one kind (none for kinds they add nothing to). */
export function demoRecords(world: World, plan: DemoPlan, kind: string): object[] {
  return RECORDS[kind]?.(world, plan) ?? [];
}

const RECORDS: Record<string, (world: World, plan: DemoPlan) => object[]> = {
  profiles: (_, { users }) =>
    users.map((u) => ({
      profileId: u.profileId,
      name: u.name,
      avatar: `https://cdn.soulgraph.example/avatars/${u.profileId}.png`,
      addresses: [wallet(u)],
      socialUsername: u.socialUsername,
      gamePlatformId: u.gamePlatformId,
      updatedAt: '2024-06-01T00:00:00Z',
    })),
  // Each follows the next demo user (Ada -> Grace -> Alan -> Ada) and their world friends.
  follows: (world, { users, friends }) =>
    users.flatMap((u, i) =>
      [users[(i + 1) % users.length]!.profileId, ...friends[i]!.map((p) => profileIdOf(world, p))].map((followee, n) => ({
        followerProfileId: u.profileId,
        followeeProfileId: followee,
        followedAt: isoTime(CHAIN_END - (30 + n) * DAY),
      })),
    ),
  'social-follows': (world, { users, socialFollows }) =>
    users.flatMap((u, i) =>
      socialFollows[i]!.map((p, n) => ({ follower: u.socialUsername, followee: handleOf(world, p)!, followedAt: isoTime(CHAIN_END - (40 + n) * DAY) })),
    ),
  transactions: (world, { users, counterparties }) => users.flatMap((u, i) => counterparties[i]!.flatMap((p, n) => paymentsBetween(world, u, i, p, n))),
  'nft-collections': (world, { users }) =>
    users.map((u, i) => ({
      chainId: world.chainId,
      contract: collectionAddress(world, i),
      name: u.collection,
      symbol: u.collection.split(' ').map((word) => word[0]).join(''),
      updatedAt: '2024-12-31T00:00:00Z',
    })),
  // One token of the user's own collection minted to them and to each co-holder.
  'nft-transfers': (world, { users, coHolders }) =>
    users.flatMap((u, i) =>
      [wallet(u), ...coHolders[i]!.map((p) => addressOf(world, p, 0))].map((holder, n) => {
        const at = CHAIN_END - (60 + n) * DAY;
        return {
          chainId: world.chainId,
          contract: collectionAddress(world, i),
          tokenId: String(n + 1),
          from: ZERO_ADDRESS,
          to: holder,
          amount: '1',
          standard: 'ERC-721',
          blockNumber: blockNumberAt(at),
          blockTime: at,
          logIndex: n,
          txHash: world.ids.hash(idDomain.nftTransfer, n, DEMO_UNIT + i),
        };
      }),
    ),
  // SBTs of world issuers, so that their categories become the user's tags.
  'sbt-mints': (world, { users }) => {
    const issuers = sbtIssuers(world);
    return users.flatMap((u, i) => {
      const rng = rngFor(world.seed, STREAM, i);
      return Array.from({ length: SBTS }, (_, n) =>
        sbtMintRecord(world, issuers[(i * SBTS + n) % issuers.length]!, String(DEMO_TOKEN_BASE + i * 16 + n), wallet(u), rng),
      );
    });
  },
};

/** Three payments between demo user `u` (the i-th) and world profile `p` (its n-th counterparty), both ways, in the chain's last weeks. */
function paymentsBetween(world: World, u: DemoUser, i: number, p: number, n: number): object[] {
  const theirs = addressOf(world, p, 0);
  return [0, 1, 2].map((k) => {
    const sequence = n * 3 + k;
    const at = CHAIN_END - (5 + sequence * 3) * DAY;
    const [from, to] = k === 1 ? [theirs, wallet(u)] : [wallet(u), theirs];
    return {
      chainId: world.chainId,
      hash: world.ids.hash(idDomain.transaction, sequence, DEMO_UNIT + i),
      blockNumber: blockNumberAt(at),
      blockTime: at,
      from,
      to,
      value: `${(k + 1) * 100}000000000000000`, // 0.1, 0.2, 0.3 ETH
    };
  });
}

/** Records carry addresses in lowercase. */
function wallet(u: DemoUser): string {
  return u.address.toLowerCase();
}

/** `source` with one more unit at the end: the demo users' records of its kind. */
export function withDemoRecords(source: KindSource, records: () => object[]): KindSource {
  return {
    kind: source.kind,
    units: source.units + 1,
    recordsOf: (unit) => (unit < source.units ? source.recordsOf(unit) : records()),
  };
}

function collectionAddress(world: World, user: number): string {
  return world.ids.address(idDomain.nftCollection, DEMO_UNIT + user);
}

/** World profiles (in index order) that choose to follow at least `min` others in the app. */
function* profilesFollowingAtLeast(world: World, min: number): Generator<number> {
  const follows = appFollowSource(world);
  for (let p = 0; p < world.profiles; p++) {
    const own = profileIdOf(world, p);
    const count = [...follows.recordsOf(p)].filter((r) => (r as { followerProfileId: string }).followerProfileId === own).length;
    if (count >= min) yield p;
  }
}

/** Everyone the given profiles follow in the app, follow-backs included: one pass over the follow graph. */
function followeesOf(world: World, followers: Set<string>): number[] {
  const indexOf = new Map<string, number>();
  const found: string[] = [];
  const follows = appFollowSource(world);
  for (let p = 0; p < world.profiles; p++) {
    indexOf.set(profileIdOf(world, p), p);
    for (const r of follows.recordsOf(p) as Iterable<{ followerProfileId: string; followeeProfileId: string }>) {
      if (followers.has(r.followerProfileId)) found.push(r.followeeProfileId);
    }
  }
  return found.map((id) => indexOf.get(id)!);
}

function take(pool: Iterator<number>, n: number, fits: (p: number) => boolean): number[] {
  const taken: number[] = [];
  while (taken.length < n) {
    const next = pool.next();
    if (next.done) break;
    if (fits(next.value)) taken.push(next.value);
  }
  return taken;
}

function addressOfKey(privateKey: Uint8Array): string {
  const publicKey = secp256k1.getPublicKey(privateKey, false);
  return `0x${bytesToHex(keccak_256(publicKey.subarray(1)).subarray(12))}`;
}

/** EIP-55 mixed-case checksum. */
function checksummed(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(hex)));
  return `0x${[...hex].map((c, i) => (parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join('')}`;
}
