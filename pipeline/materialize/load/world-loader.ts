/**
 * The load phase of a run: every input read from ClickHouse once, each in one RowBinary
 * stream (inputs-sql.ts), into the typed arrays the ranker works on (graph/). Profiles first
 * (their dense ids are their order by profile_id), then the rest side by side: ClickHouse
 * computes the transfer pairs while this process decodes the follows.
 *
 * Every array the rank threads read lives on shared memory (one copy, whatever the threads).
 */
import { z } from 'zod';
import type { ClickHouse, QuerySettings } from '../../../shared/clickhouse/client.ts';
import { FollowGraph } from '../graph/follow-graph.ts';
import { followMoments } from '../graph/follow-moments.ts';
import { signalGraphs, type Collections } from '../graph/signal-graphs.ts';
import type { World } from '../graph/world.ts';
import { GrowableFloat64, GrowableUint32 } from './growable.ts';
import { HashIndex } from './hash-index.ts';
import { IdIndex } from './id-index.ts';
import {
  collectionNamesSql,
  addressPairsSql,
  excludedListSql,
  followsSql,
  holdingsSql,
  newestActivitySql,
  profilesSql,
  socialFollowsSql,
  type InputRules,
} from './inputs-sql.ts';
import { readRows } from './row-binary.ts';

export interface LoadRules extends InputRules {
  /** Collections held by more profiles say nothing about any pair: left out. */
  nftMaxHolders: number;
  nftSpamContracts: readonly string[];
}

export interface LoadReport {
  profiles: number;
  follows: number;
  socialFollows: number;
  counterpartyPairs: number;
  holdings: number;
  collections: number;
  excludedAddresses: number;
  seconds: number;
  /** When each read had finished, and the arrays were built, in seconds from the start. */
  steps: Record<string, number>;
}

export async function loadWorld(ch: ClickHouse, rules: LoadRules, settings: QuerySettings): Promise<{ world: World; report: LoadReport }> {
  const started = performance.now();
  const seconds: Record<string, number> = {};
  const asOf = await newestActivity(ch);
  const { profiles, profileHashes, handles, addresses } = await readProfiles(ch, settings);
  seconds.profiles = (performance.now() - started) / 1000;
  const n = profiles.size;
  const timed = <T>(name: string, read: Promise<T>) => read.then((value) => ((seconds[name] = (performance.now() - started) / 1000), value));
  const excludedRead = timed('excluded', readExcluded(ch, rules, asOf, settings));
  const [follows, social, pairs, holdings, names, excluded] = await Promise.all([
    timed('follows', readFollows(ch, profileHashes, settings)),
    timed('social', readSocialFollows(ch, handles, settings)),
    timed('pairs', readPairs(ch, rules, asOf, settings, addresses, excludedRead)),
    timed('holdings', readHoldings(ch, profileHashes, settings)),
    timed('names', readCollectionNames(ch, settings)),
    excludedRead,
  ]);
  seconds.read = (performance.now() - started) / 1000;
  const graph = FollowGraph.of(n, follows.from, follows.to, follows.times, true);
  const rank = new Uint32Array(n);
  graph.popularOrder.forEach((p, r) => (rank[p] = r));
  const eligible = eligibleCollections(holdings, names, rules);
  const signals = signalGraphs(n, social, pairs, eligible.holdings, eligible.collections, rank, true);
  seconds.built = (performance.now() - started) / 1000;
  const world: World = {
    profiles,
    profileHashes,
    handles,
    addresses,
    follows: graph,
    ...(timesVary(follows.times) ? { moments: followMoments(graph, true) } : {}),
    signals,
    collectionIndex: eligible.index,
    excluded: excluded.index,
    asOf,
  };
  return {
    world,
    report: {
      profiles: n,
      follows: graph.edges,
      socialFollows: social.from.length,
      counterpartyPairs: pairs.from.length,
      holdings: eligible.holdings.holder.length,
      collections: eligible.collections.chainId.length,
      excludedAddresses: excluded.count,
      seconds: (performance.now() - started) / 1000,
      steps: seconds,
    },
  };
}

const newestRow = z.object({ t: z.coerce.number() });

/** The newest block time; now when there are no transfers. */
async function newestActivity(ch: ClickHouse): Promise<number> {
  const [row] = await ch.query(newestActivitySql(), newestRow);
  return row && row.t > 0 ? row.t : Math.floor(Date.now() / 1000);
}

async function readProfiles(ch: ClickHouse, settings: QuerySettings) {
  const ids: string[] = [];
  const profileLo = new GrowableUint32();
  const profileHi = new GrowableUint32();
  const handleLo = new GrowableUint32();
  const handleHi = new GrowableUint32();
  const handleOwner = new GrowableUint32();
  const addressLo = new GrowableUint32();
  const addressHi = new GrowableUint32();
  const addressOwner = new GrowableUint32();
  await readRows(ch.rowBinary(profilesSql(), settings), (row) => {
    const id = row.string();
    const lo = row.uint32();
    const hi = row.uint32();
    const handle = [row.uint32(), row.uint32()] as const;
    const count = row.varUInt();
    const hashes: number[] = [];
    for (let i = 0; i < count; i++) hashes.push(row.uint32(), row.uint32());
    // Nothing is kept before the row is whole (row-binary.ts reads a cut row again).
    const p = ids.length;
    ids.push(id);
    profileLo.push(lo);
    profileHi.push(hi);
    if (handle[0] !== 0 || handle[1] !== 0) {
      handleLo.push(handle[0]);
      handleHi.push(handle[1]);
      handleOwner.push(p);
    }
    for (let i = 0; i < hashes.length; i += 2) {
      addressLo.push(hashes[i]!);
      addressHi.push(hashes[i + 1]!);
      addressOwner.push(p);
    }
  });
  // A handle or an address belongs to one profile (the ingest worker refuses a second); the first (by profile_id) keeps it if not.
  return {
    profiles: new IdIndex(ids),
    profileHashes: new HashIndex(profileLo.done(), profileHi.done()),
    handles: new HashIndex(handleLo.done(), handleHi.done(), handleOwner.done(), 'keep-first'),
    addresses: new HashIndex(addressLo.done(), addressHi.done(), addressOwner.done(), 'keep-first'),
  };
}

async function readFollows(ch: ClickHouse, profiles: HashIndex, settings: QuerySettings) {
  const from = new GrowableUint32();
  const to = new GrowableUint32();
  const times = new GrowableUint32();
  await readRows(ch.rowBinary(followsSql(), settings), (row) => {
    const follower = profiles.lookup(row.uint32(), row.uint32());
    const followee = profiles.lookup(row.uint32(), row.uint32());
    const time = row.uint32();
    // A follow of a profile newer than the profiles read (ingested meanwhile) waits for the next run.
    if (follower < 0 || followee < 0) return;
    from.push(follower);
    to.push(followee);
    times.push(time);
  });
  return { from: from.done(), to: to.done(), times: times.done() };
}

async function readSocialFollows(ch: ClickHouse, handles: HashIndex, settings: QuerySettings) {
  const from = new GrowableUint32();
  const to = new GrowableUint32();
  await readRows(ch.rowBinary(socialFollowsSql(), settings), (row) => {
    const p = handles.lookup(row.uint32(), row.uint32());
    const c = handles.lookup(row.uint32(), row.uint32());
    // Only follows between handles of profiles say anything about a pair of them.
    if (p < 0 || c < 0 || p === c) return;
    from.push(p);
    to.push(c);
  });
  return { from: from.done(), to: to.done() };
}

/**
 * Transfers between profiles' addresses as pairs of profiles: excluded addresses (read beside
 * them), and transfers between a profile's own addresses, left out.
 */
async function readPairs(ch: ClickHouse, rules: InputRules, asOf: number, settings: QuerySettings, addresses: HashIndex, excludedRead: Promise<{ index: HashIndex }>) {
  const own = new GrowableUint32();
  const other = new GrowableUint32();
  const chainId = new GrowableUint32();
  const transfers = new GrowableUint32();
  const last = new GrowableUint32();
  const weight = new GrowableFloat64();
  const hashes = new GrowableUint32();
  await readRows(ch.rowBinary(addressPairsSql(rules, asOf), settings), (row) => {
    const aLo = row.uint32();
    const aHi = row.uint32();
    const bLo = row.uint32();
    const bHi = row.uint32();
    const chain = row.uint32();
    const count = row.uint32();
    const newest = row.uint32();
    const w = row.float64();
    const a = addresses.lookup(aLo, aHi);
    const b = addresses.lookup(bLo, bHi);
    if (a < 0 || b < 0 || a === b) return;
    hashes.push(aLo);
    hashes.push(aHi);
    hashes.push(bLo);
    hashes.push(bHi);
    own.push(a);
    other.push(b);
    chainId.push(chain);
    transfers.push(count);
    last.push(newest);
    weight.push(w);
  });
  const excluded = (await excludedRead).index;
  const h = hashes.done();
  const keep = (i: number) => excluded.lookup(h[i * 4]!, h[i * 4 + 1]!) < 0 && excluded.lookup(h[i * 4 + 2]!, h[i * 4 + 3]!) < 0;
  const rows = Array.from({ length: own.length }, (_, i) => i).filter(keep);
  const pick = <T extends Uint32Array | Float64Array>(values: T) => values.constructor === Float64Array ? (Float64Array.from(rows, (i) => values[i]!) as T) : (Uint32Array.from(rows, (i) => values[i]!) as T);
  return {
    from: pick(own.done()),
    to: pick(other.done()),
    chainId: pick(chainId.done()),
    transfers: pick(transfers.done()),
    last: pick(last.done()),
    weight: pick(weight.done()),
  };
}

interface RawHoldings {
  holder: Uint32Array;
  /** Collection keys "<chain>:<contract>" per holding, and the distinct keys. */
  key: Uint32Array;
  keys: string[];
}

async function readHoldings(ch: ClickHouse, profiles: HashIndex, settings: QuerySettings): Promise<RawHoldings> {
  const holder = new GrowableUint32();
  const key = new GrowableUint32();
  const keyOf = new Map<string, number>();
  await readRows(ch.rowBinary(holdingsSql(), settings), (row) => {
    const p = profiles.lookup(row.uint32(), row.uint32());
    const chain = row.uint32();
    const contract = row.string();
    if (p < 0) return;
    const name = collectionKey(chain, contract);
    let k = keyOf.get(name);
    if (k === undefined) keyOf.set(name, (k = keyOf.size));
    holder.push(p);
    key.push(k);
  });
  return { holder: holder.done(), key: key.done(), keys: [...keyOf.keys()] };
}

export function collectionKey(chainId: number, contract: string): string {
  return `${chainId}:${contract}`;
}

async function readCollectionNames(ch: ClickHouse, settings: QuerySettings): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  await readRows(ch.rowBinary(collectionNamesSql(), settings), (row) => {
    const chain = row.uint32();
    const contract = row.string();
    names.set(collectionKey(chain, contract), row.string());
  });
  return names;
}

async function readExcluded(ch: ClickHouse, rules: InputRules, asOf: number, settings: QuerySettings): Promise<{ index: HashIndex; count: number }> {
  const lo = new GrowableUint32();
  const hi = new GrowableUint32();
  await readRows(ch.rowBinary(excludedListSql(rules, asOf), settings), (row) => {
    lo.push(row.uint32());
    hi.push(row.uint32());
  });
  return { index: new HashIndex(lo.done(), hi.done()), count: lo.length };
}

/**
 * Collections that can say something about a pair: held by at least two profiles and at most
 * nftMaxHolders, not on the spam list; numbered rarest first (then by chain and contract), each
 * weighing 1 / ln(1 + holders): a collection of 10 holders says far more than one of 1,000.
 */
function eligibleCollections(raw: RawHoldings, names: Map<string, string>, rules: LoadRules) {
  const holders = new Uint32Array(raw.keys.length);
  for (const k of raw.key) holders[k]!++;
  const spam = new Set(rules.nftSpamContracts);
  const kept = raw.keys
    .map((key, k) => ({ key, k, holders: holders[k]!, contract: key.slice(key.indexOf(':') + 1), chainId: Number(key.slice(0, key.indexOf(':'))) }))
    .filter((c) => c.holders >= 2 && c.holders <= rules.nftMaxHolders && !spam.has(c.contract))
    .sort((a, b) => a.holders - b.holders || a.chainId - b.chainId || (a.contract < b.contract ? -1 : a.contract > b.contract ? 1 : 0));
  const numberOf = new Int32Array(raw.keys.length).fill(-1);
  kept.forEach((c, i) => (numberOf[c.k] = i));
  const holder = new GrowableUint32();
  const collection = new GrowableUint32();
  for (let i = 0; i < raw.holder.length; i++) {
    const c = numberOf[raw.key[i]!]!;
    if (c < 0) continue;
    holder.push(raw.holder[i]!);
    collection.push(c);
  }
  const collections: Collections = {
    chainId: Uint32Array.from(kept, (c) => c.chainId),
    contract: kept.map((c) => c.contract),
    name: kept.map((c) => names.get(c.key) ?? c.contract),
    weight: Float64Array.from(kept, (c) => 1 / Math.log(1 + c.holders)),
  };
  return { holdings: { holder: holder.done(), collection: collection.done() }, collections, index: new Map(kept.map((c, i) => [c.key, i])) };
}

function timesVary(times: Uint32Array): boolean {
  for (let i = 1; i < times.length; i++) if (times[i] !== times[0]) return true;
  return false;
}
