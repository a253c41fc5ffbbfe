/**
 * A caller's own facts read live from ClickHouse and put in a world's terms (rank/own-facts.ts):
 * its follows both ways, whom its handle follows, its counterparties and its collections,
 * as they are now, whether or not the world (loaded at the last run) held the caller. What the
 * world does not know (a profile newer than it) is left out; the rest of the graph is the
 * world's.
 */
import { z } from 'zod';
import type { ClickHouse, QuerySettings } from '../../../shared/clickhouse/client.ts';
import { momentAt } from '../graph/follow-moments.ts';
import { combinedPairs } from '../graph/signal-graphs.ts';
import type { World } from '../graph/world.ts';
import type { OwnFacts } from '../rank/own-facts.ts';
import { GrowableFloat64, GrowableUint32 } from './growable.ts';
import type { InputRules } from './inputs-sql.ts';
import { collectionKey } from './world-loader.ts';
import { ownCounterpartiesSql, ownFolloweesSql, ownFollowersSql, ownHoldingsSql, ownProfileSql, ownSocialFollowsSql } from './own-facts-sql.ts';
import { writtenOutTransfers } from './own-transfers.ts';
import { readRows } from './row-binary.ts';

const profileRow = z.object({ addresses: z.array(z.string()), address_hashes: z.array(z.string().regex(/^\d+$/)), social_username: z.string() });

/** The caller's end of its counterparty pairs: above every profile's number, so never one of them. */
const CALLER = 0xffff_ffff;

/** A UInt64 written in decimal as the two 32-bit words RowBinary gives it in. */
function words(decimal: string): [lo: number, hi: number] {
  const value = BigInt(decimal);
  return [Number(value & 0xffffffffn), Number(value >> 32n)];
}

/** The caller's facts, or undefined when no profile has that id. */
export async function readOwnFacts(ch: ClickHouse, world: World, profileId: string, rules: InputRules, settings: QuerySettings): Promise<OwnFacts | undefined> {
  const [profile] = await ch.query(ownProfileSql(profileId), profileRow);
  if (!profile) return undefined;
  // An address that counts for nobody (a hub, a labelled contract) does not count for its profile either.
  const counted = profile.addresses.filter((_, i) => world.excluded.lookup(...words(profile.address_hashes[i]!)) < 0);
  const [followees, followers, social, transfers] = await Promise.all([
    readFollows(ch, world, ownFolloweesSql(profileId), settings),
    readFollows(ch, world, ownFollowersSql(profileId), settings),
    profile.social_username === '' ? Promise.resolve(new Uint32Array(0)) : readSocial(ch, world, profile.social_username, settings),
    counted.length === 0 ? Promise.resolve(undefined) : readTransfers(ch, world, counted, rules, settings),
  ]);
  const profileNumber = world.profiles.numberOf(profileId);
  const self = (p: number) => p !== profileNumber;
  const newestFollow = followees.times.reduce((a, b) => Math.max(a, b), 0);
  return {
    profile: profileNumber,
    followees: followees.profiles.filter(self),
    followers: followers.profiles.filter(self),
    followerTimes: followers.times.filter((_, i) => self(followers.profiles[i]!)),
    newestFollow,
    newestMoment: world.moments && followees.profiles.length > 0 ? momentAt(world.moments, newestFollow) : -1,
    social: social.filter(self),
    counterparties: transfers?.counterparties ?? { profile: new Uint32Array(0), weight: new Float64Array(0), chainId: new Uint32Array(0), transfers: new Uint32Array(0), last: new Uint32Array(0) },
    holdings: transfers?.holdings ?? new Uint32Array(0),
  };
}

async function readFollows(ch: ClickHouse, world: World, statement: Parameters<ClickHouse['rowBinary']>[0], settings: QuerySettings) {
  const profiles = new GrowableUint32();
  const times = new GrowableUint32();
  await readRows(ch.rowBinary(statement, settings), (row) => {
    const p = world.profileHashes.lookup(row.uint32(), row.uint32());
    const time = row.uint32();
    if (p < 0) return;
    profiles.push(p);
    times.push(time);
  });
  return { profiles: profiles.done(), times: times.done() };
}

async function readSocial(ch: ClickHouse, world: World, handle: string, settings: QuerySettings): Promise<Uint32Array> {
  const followed = new GrowableUint32();
  await readRows(ch.rowBinary(ownSocialFollowsSql(handle), settings), (row) => {
    const owner = world.handles.lookup(row.uint32(), row.uint32());
    if (owner >= 0) followed.push(owner);
  });
  return followed.done();
}

/** The caller's counterparties among the world's profiles (one row per profile: chains combined as a run does) and its eligible collections. */
async function readTransfers(ch: ClickHouse, world: World, addresses: string[], rules: InputRules, settings: QuerySettings) {
  const own = await writtenOutTransfers(ch, addresses, settings);
  // One row per counterparty profile and chain, combined per profile as a run combines pairs.
  const pairs = { from: new GrowableUint32(), to: new GrowableUint32(), chainId: new GrowableUint32(), transfers: new GrowableUint32(), last: new GrowableUint32(), weight: new GrowableFloat64() };
  const holdings = new Set<number>();
  await Promise.all([
    readRows(ch.rowBinary(ownCounterpartiesSql(rules, world.asOf, own), settings), (row) => {
      const lo = row.uint32();
      const hi = row.uint32();
      const chainId = row.uint32();
      const transfers = row.uint32();
      const last = row.uint32();
      const weight = row.float64();
      const c = world.addresses.lookup(lo, hi);
      // Hubs, exchanges and the like count for nobody, as in the run.
      if (c < 0 || world.excluded.lookup(lo, hi) >= 0) return;
      pairs.from.push(c);
      pairs.to.push(CALLER);
      pairs.chainId.push(chainId);
      pairs.transfers.push(transfers);
      pairs.last.push(last);
      pairs.weight.push(weight);
    }),
    readRows(ch.rowBinary(ownHoldingsSql(own), settings), (row) => {
      const chainId = row.uint32();
      const contract = row.string();
      const collection = world.collectionIndex.get(collectionKey(chainId, contract));
      if (collection !== undefined) holdings.add(collection);
    }),
  ]);
  const combined = combinedPairs({
    from: pairs.from.done(),
    to: pairs.to.done(),
    chainId: pairs.chainId.done(),
    transfers: pairs.transfers.done(),
    last: pairs.last.done(),
    weight: pairs.weight.done(),
  });
  // Each pair is (counterparty, CALLER), the counterparty the smaller: in the counterparties' order.
  const order = Array.from(combined.from.keys()).sort((a, b) => combined.from[a]! - combined.from[b]!);
  const pick = <T extends Uint32Array | Float64Array>(values: T): T => values.map((_, i) => values[order[i]!]!) as T;
  return {
    counterparties: { profile: pick(combined.from), weight: pick(combined.weight), chainId: pick(combined.chainId), transfers: pick(combined.transfers), last: pick(combined.last) },
    holdings: Uint32Array.from([...holdings].sort((a, b) => a - b)),
  };
}
