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
  const { profiles, handles, addresses, addressOwner } = await readProfiles(ch, settings);
  seconds.profiles = (performance.now() - started) / 1000;
  const n = profiles.size;
  const timed = <T>(name: string, read: Promise<T>) => read.then((value) => ((seconds[name] = (performance.now() - started) / 1000), value));
  const excludedRead = timed('excluded', readExcluded(ch, rules, asOf, settings));
  const [follows, social, pairs, holdings, names, excluded] = await Promise.all([
    timed('follows', readFollows(ch, profiles, settings)),
    timed('social', readSocialFollows(ch, handles, settings)),
    timed('pairs', readAddressPairs(ch, rules, asOf, settings).then(async (rows) => profilePairs(rows, addresses, addressOwner, await excludedRead))),
    timed('holdings', readHoldings(ch, profiles, settings)),
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
    handles: handles.index,
    handleOwner: handles.owner,
    addresses,
    addressOwner,
    follows: graph,
    ...(timesVary(follows.times) ? { moments: followMoments(graph, true) } : {}),
    signals,
    collectionIndex: eligible.index,
    excluded,
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
      excludedAddresses: excluded.size,
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
  const handleOf: string[] = [];
  const addressList: string[] = [];
  const owners: number[] = [];
  await readRows(ch.rowBinary(profilesSql(), settings), (row) => {
    const id = row.string();
    const handle = row.string();
    const addresses = row.strings();
    const p = ids.length;
    ids.push(id);
    handleOf.push(handle);
    for (const address of addresses) {
      addressList.push(address);
      owners.push(p);
    }
  });
  // A handle or an address belongs to one profile (the ingest worker refuses a second); the first keeps it if not.
  const handles = new Map<string, number>();
  handleOf.forEach((handle, p) => handle !== '' && !handles.has(handle) && handles.set(handle, p));
  const firstOwner = new Map<string, number>();
  addressList.forEach((address, i) => !firstOwner.has(address) && firstOwner.set(address, owners[i]!));
  return { profiles: new IdIndex(ids), handles: withOwners(handles), addresses: new IdIndex([...firstOwner.keys()]), addressOwner: Uint32Array.from(firstOwner.values()) };
}

/** A handle index whose numbers are the handles' profiles. */
function withOwners(handles: Map<string, number>): { index: IdIndex; owner: Uint32Array } {
  return { index: new IdIndex([...handles.keys()]), owner: Uint32Array.from(handles.values()) };
}

async function readFollows(ch: ClickHouse, profiles: IdIndex, settings: QuerySettings) {
  const from = new GrowableUint32();
  const to = new GrowableUint32();
  const times = new GrowableUint32();
  await readRows(ch.rowBinary(followsSql(), settings), (row) => {
    const [a, aEnd] = row.stringBytes();
    const follower = profiles.lookup(row.buffer, a, aEnd);
    const [b, bEnd] = row.stringBytes();
    const followee = profiles.lookup(row.buffer, b, bEnd);
    const time = row.uint32();
    // A follow of a profile newer than the profiles read (ingested meanwhile) waits for the next run.
    if (follower < 0 || followee < 0) return;
    from.push(follower);
    to.push(followee);
    times.push(time);
  });
  return { from: from.done(), to: to.done(), times: times.done() };
}

async function readSocialFollows(ch: ClickHouse, handles: { index: IdIndex; owner: Uint32Array }, settings: QuerySettings) {
  const from = new GrowableUint32();
  const to = new GrowableUint32();
  await readRows(ch.rowBinary(socialFollowsSql(), settings), (row) => {
    const [a, aEnd] = row.stringBytes();
    const follower = handles.index.lookup(row.buffer, a, aEnd);
    const [b, bEnd] = row.stringBytes();
    const followee = handles.index.lookup(row.buffer, b, bEnd);
    // Only follows between handles of profiles say anything about a pair of them.
    if (follower < 0 || followee < 0) return;
    const p = handles.owner[follower]!;
    const c = handles.owner[followee]!;
    if (p === c) return;
    from.push(p);
    to.push(c);
  });
  return { from: from.done(), to: to.done() };
}

interface AddressPairs {
  own: string[];
  other: string[];
  chainId: Uint32Array;
  transfers: Uint32Array;
  last: Uint32Array;
  weight: Float64Array;
}

async function readAddressPairs(ch: ClickHouse, rules: InputRules, asOf: number, settings: QuerySettings): Promise<AddressPairs> {
  const own: string[] = [];
  const other: string[] = [];
  const chainId = new GrowableUint32();
  const transfers = new GrowableUint32();
  const last = new GrowableUint32();
  const weight = new GrowableFloat64();
  await readRows(ch.rowBinary(addressPairsSql(rules, asOf), settings), (row) => {
    const a = row.string();
    const b = row.string();
    const chain = row.uint32();
    const count = row.uint32();
    const newest = row.uint32();
    const w = row.float64();
    own.push(a);
    other.push(b);
    chainId.push(chain);
    transfers.push(count);
    last.push(newest);
    weight.push(w);
  });
  return { own, other, chainId: chainId.done(), transfers: transfers.done(), last: last.done(), weight: weight.done() };
}

/** The address pairs as pairs of profiles: excluded addresses, and transfers between a profile's own addresses, left out. */
function profilePairs(rows: AddressPairs, addresses: IdIndex, owner: Uint32Array, excluded: ReadonlySet<string>) {
  const from = new GrowableUint32();
  const to = new GrowableUint32();
  const chainId = new GrowableUint32();
  const transfers = new GrowableUint32();
  const last = new GrowableUint32();
  const weight = new GrowableFloat64();
  for (let i = 0; i < rows.own.length; i++) {
    const a = addresses.numberOf(rows.own[i]!);
    const b = addresses.numberOf(rows.other[i]!);
    if (a < 0 || b < 0 || excluded.has(rows.own[i]!) || excluded.has(rows.other[i]!)) continue;
    const p = owner[a]!;
    const c = owner[b]!;
    if (p === c) continue;
    from.push(p);
    to.push(c);
    chainId.push(rows.chainId[i]!);
    transfers.push(rows.transfers[i]!);
    last.push(rows.last[i]!);
    weight.push(rows.weight[i]!);
  }
  return { from: from.done(), to: to.done(), chainId: chainId.done(), transfers: transfers.done(), last: last.done(), weight: weight.done() };
}

interface RawHoldings {
  holder: Uint32Array;
  /** Collection keys "<chain>:<contract>" per holding, and the distinct keys. */
  key: Uint32Array;
  keys: string[];
}

async function readHoldings(ch: ClickHouse, profiles: IdIndex, settings: QuerySettings): Promise<RawHoldings> {
  const holder = new GrowableUint32();
  const key = new GrowableUint32();
  const keyOf = new Map<string, number>();
  await readRows(ch.rowBinary(holdingsSql(), settings), (row) => {
    const [a, aEnd] = row.stringBytes();
    const p = profiles.lookup(row.buffer, a, aEnd);
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

async function readExcluded(ch: ClickHouse, rules: InputRules, asOf: number, settings: QuerySettings): Promise<Set<string>> {
  const excluded = new Set<string>();
  await readRows(ch.rowBinary(excludedListSql(rules, asOf), settings), (row) => void excluded.add(row.string()));
  return excluded;
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
