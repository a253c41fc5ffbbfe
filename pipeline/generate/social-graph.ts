/**
 * Follow graphs: `social-follows` (handle -> handle, the external social network) and
 * `follows` (profileId -> profileId, inside the app). Both are drawn from the same
 * communities and the same global popularity, so they correlate without being copies.
 *
 * Shape: each follower picks followees mostly in its own community (well-known members
 * more likely) and sometimes among globally famous accounts, which gives a power-law
 * in-degree. Some follows are returned (reciprocity), celebrities rarely follow back,
 * and a few follows were later undone.
 *
 * A pair is never emitted twice: a follower's picks are a set, and a follow-back v -> u is
 * emitted while generating u only if v's own picks (recomputed from v's stream) lack u.
 */
import { CHAIN_END, CHAIN_START, DAY, SOCIAL_START, isoTime, timeBetween } from './chain-clock.ts';
import { handleOf, hasHandle, profileIdOf } from './identities.ts';
import type { KindSource } from './kind-source.ts';
import { rngFor, streamKey, type Rng } from './random.ts';
import type { World } from './world.ts';

interface FollowShape {
  readonly kind: 'social-follows' | 'follows';
  /** Whether World.appFollowScale scales the degrees. */
  readonly scaled: boolean;
  /** Out-degree ~ Pareto(minDegree, degreeAlpha), capped: most follow a few, some follow many. */
  readonly minDegree: number;
  readonly degreeAlpha: number;
  readonly maxDegree: number;
  /** Share of picks aimed at globally famous accounts rather than the community. */
  readonly famousShare: number;
  readonly followBack: number;
  readonly famousFollowBack: number;
  readonly unfollowShare: number;
  readonly since: number;
  isMember(world: World, profile: number): boolean;
  record(world: World, follower: number, followee: number, followedAt: string, unfollowedAt?: string): object;
}

interface Pick {
  readonly followee: number;
  readonly famous: boolean;
}

const LATEST_FOLLOW = CHAIN_END - 2 * DAY;

const socialShape: FollowShape = {
  kind: 'social-follows',
  scaled: false,
  minDegree: 8,
  degreeAlpha: 1.8,
  maxDegree: 1_000,
  famousShare: 0.2,
  followBack: 0.14,
  famousFollowBack: 0.02,
  unfollowShare: 0.06,
  since: SOCIAL_START,
  isMember: hasHandle,
  record: (world, follower, followee, followedAt, unfollowedAt) => ({
    follower: handleOf(world, follower),
    followee: handleOf(world, followee),
    followedAt,
    unfollowedAt,
  }),
};

const appShape: FollowShape = {
  kind: 'follows',
  scaled: true,
  minDegree: 3,
  degreeAlpha: 1.8,
  maxDegree: 300,
  famousShare: 0.15,
  followBack: 0.2,
  famousFollowBack: 0.03,
  unfollowShare: 0.04,
  since: CHAIN_START,
  isMember: () => true,
  record: (world, follower, followee, followedAt, unfollowedAt) => ({
    followerProfileId: profileIdOf(world, follower),
    followeeProfileId: profileIdOf(world, followee),
    followedAt,
    unfollowedAt,
  }),
};

export function socialFollowSource(world: World): KindSource {
  return followSource(world, socialShape);
}

export function appFollowSource(world: World): KindSource {
  return followSource(world, appShape);
}

function followSource(world: World, shape: FollowShape): KindSource {
  const stream = streamKey(shape.kind);
  return { kind: shape.kind, units: world.profiles, recordsOf: (profile) => followsOf(world, shape, stream, profile) };
}

/** The follow records generated while visiting `follower`: its own follows plus follow-backs to it. */
function followsOf(world: World, shape: FollowShape, stream: number, follower: number): object[] {
  if (!shape.isMember(world, follower)) return [];
  const rng = rngFor(world.seed, stream, follower);
  const records: object[] = [];
  for (const pick of picksOf(world, shape, follower, rng)) {
    const followedAt = timeBetween(rng, shape.since, LATEST_FOLLOW);
    records.push(followRecord(world, shape, follower, pick.followee, followedAt, rng));
    const returned = rng.chance(pick.famous ? shape.famousFollowBack : shape.followBack);
    if (returned && !followsByChoice(world, shape, stream, pick.followee, follower)) {
      const backAt = Math.min(LATEST_FOLLOW, followedAt + rng.between(60, 30 * DAY));
      records.push(followRecord(world, shape, pick.followee, follower, backAt, rng));
    }
  }
  return records;
}

/** Whom `follower` chooses to follow: distinct, never itself, only profiles on this network. */
function picksOf(world: World, shape: FollowShape, follower: number, rng: Rng): Pick[] {
  const scale = shape.scaled ? world.appFollowScale : 1;
  const wanted = Math.min(shape.maxDegree * scale, world.profiles - 1, Math.floor(rng.pareto(shape.minDegree * scale, shape.degreeAlpha)));
  const picks: Pick[] = [];
  const chosen = new Set<number>();
  for (let attempt = 0; picks.length < wanted && attempt < wanted * 3; attempt++) {
    const famous = rng.chance(shape.famousShare);
    const followee = famous ? world.popularity.pick(rng) : world.communities.popularPeer(follower, rng);
    if (followee < 0 || followee === follower || chosen.has(followee) || !shape.isMember(world, followee)) continue;
    chosen.add(followee);
    picks.push({ followee, famous });
  }
  return picks;
}

/** Whether `follower` follows `followee` of its own accord (recomputed from follower's stream). */
function followsByChoice(world: World, shape: FollowShape, stream: number, follower: number, followee: number): boolean {
  return picksOf(world, shape, follower, rngFor(world.seed, stream, follower)).some((p) => p.followee === followee);
}

function followRecord(world: World, shape: FollowShape, follower: number, followee: number, followedAt: number, rng: Rng): object {
  const unfollowed = rng.chance(shape.unfollowShare);
  const unfollowedAt = unfollowed
    ? isoTime(followedAt + rng.between(DAY, Math.min(300 * DAY, CHAIN_END - 1 - followedAt)))
    : undefined;
  return shape.record(world, follower, followee, isoTime(followedAt), unfollowedAt);
}
