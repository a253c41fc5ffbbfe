/**
 * `transactions.jsonl`: native-currency transfers, about 10 per profile.
 *
 * Mix per transaction: payments within the profile's circle (close contacts first), weak
 * ties to strangers, deposits to and withdrawals from exchange hot wallets, bridge
 * deposits, contract calls (DEX routers, marketplaces), transfers between the profile's
 * own wallets, dust from strangers, and a few contract deployments (no `to`).
 */
import { etherWei, dustWei } from './amounts.ts';
import { CHAIN_END, CHAIN_START, blockNumberAt, timeBetween } from './chain-clock.ts';
import { circleCounterparty, closeContactsOf, strangerOf } from './contacts.ts';
import { idDomain, maxSequence } from './hex-ids.ts';
import { bridges, contracts, exchanges, type KnownAddress } from './known-addresses.ts';
import type { KindSource } from './kind-source.ts';
import { rngFor, streamKey, type Rng } from './random.ts';
import { activeAddressOf, addressCountOf, addressOf } from './wallets.ts';
import type { World } from './world.ts';

const TRANSACTIONS = streamKey('transactions');
/** floor(Pareto(5.25, 2)) has mean about 10; a few heavy traders reach the cap. */
const MIN_COUNT = 5.25;
const COUNT_ALPHA = 2;
const MAX_COUNT = Math.min(400, maxSequence);

interface Transfer {
  readonly from: string;
  readonly to?: string;
  readonly value: string;
}

interface Venues {
  readonly exchanges: readonly KnownAddress[];
  readonly bridges: readonly KnownAddress[];
  readonly contracts: readonly KnownAddress[];
}

/** Everything one profile's transactions are drawn from. */
interface Sender {
  readonly world: World;
  readonly venues: Venues;
  readonly profile: number;
  readonly contacts: readonly number[];
  readonly rng: Rng;
}

export function transactionSource(world: World): KindSource {
  const venues: Venues = { exchanges: exchanges(world), bridges: bridges(world), contracts: contracts(world) };
  return { kind: 'transactions', units: world.profiles, recordsOf: (profile) => transactionsOf(world, venues, profile) };
}

function transactionsOf(world: World, venues: Venues, profile: number): object[] {
  const rng = rngFor(world.seed, TRANSACTIONS, profile);
  const sender: Sender = { world, venues, profile, contacts: closeContactsOf(world, profile), rng };
  const count = Math.min(MAX_COUNT, Math.floor(rng.pareto(MIN_COUNT, COUNT_ALPHA)));
  const records: object[] = [];
  for (let sequence = 0; sequence < count; sequence++) {
    const blockTime = timeBetween(rng, CHAIN_START, CHAIN_END);
    const transfer = transferOf(sender, activeAddressOf(world, profile, rng));
    records.push({
      chainId: world.chainId,
      hash: world.ids.hash(idDomain.transaction, sequence, profile),
      blockNumber: blockNumberAt(blockTime),
      blockTime,
      from: transfer.from,
      to: transfer.to,
      value: transfer.value,
    });
  }
  return records;
}

/** One transaction involving `own`, one of the sender's wallets. */
function transferOf(s: Sender, own: string): Transfer {
  const roll = s.rng.float();
  if (roll < 0.46) return circlePayment(s, own);
  if (roll < 0.56) return strangerPayment(s, own);
  if (roll < 0.71) return exchangeFlow(s, own);
  if (roll < 0.74) return { from: own, to: s.rng.pick(s.venues.bridges).address, value: etherWei(s.rng) };
  if (roll < 0.9) return contractCall(s, own);
  if (roll < 0.94) return selfTransfer(s, own);
  if (roll < 0.995) return dust(s, own);
  return { from: own, value: '0' };
}

/** Mostly outgoing; incoming ones are the contact paying back. */
function circlePayment(s: Sender, own: string): Transfer {
  const peer = circleCounterparty(s.world, s.profile, s.contacts, s.rng);
  if (peer < 0) return exchangeFlow(s, own);
  const theirs = activeAddressOf(s.world, peer, s.rng);
  const value = etherWei(s.rng);
  return s.rng.chance(0.7) ? { from: own, to: theirs, value } : { from: theirs, to: own, value };
}

function strangerPayment(s: Sender, own: string): Transfer {
  const stranger = strangerOf(s.world, s.profile, s.rng);
  if (stranger < 0) return exchangeFlow(s, own);
  return { from: own, to: activeAddressOf(s.world, stranger, s.rng), value: etherWei(s.rng) };
}

/** The busiest exchanges see most of the flow; withdrawals slightly outnumber deposits. */
function exchangeFlow(s: Sender, own: string): Transfer {
  const hub = s.venues.exchanges[s.rng.powerLawRank(s.venues.exchanges.length, 1)]!.address;
  const value = etherWei(s.rng);
  return s.rng.chance(0.55) ? { from: hub, to: own, value } : { from: own, to: hub, value };
}

/** Most calls carry no ether (approvals, token swaps); the rest swap or bid with ether. */
function contractCall(s: Sender, own: string): Transfer {
  const contract = s.venues.contracts[s.rng.powerLawRank(s.venues.contracts.length, 1)]!.address;
  return { from: own, to: contract, value: s.rng.chance(0.6) ? '0' : etherWei(s.rng) };
}

function selfTransfer(s: Sender, own: string): Transfer {
  const count = addressCountOf(s.world, s.profile);
  if (count < 2) return exchangeFlow(s, own);
  const others = Array.from({ length: count }, (_, slot) => addressOf(s.world, s.profile, slot)).filter((a) => a !== own);
  return { from: own, to: s.rng.pick(others), value: etherWei(s.rng) };
}

/** Address-poisoning style dust from strangers: a transfer, but no relationship. */
function dust(s: Sender, own: string): Transfer {
  const stranger = strangerOf(s.world, s.profile, s.rng);
  if (stranger < 0) return exchangeFlow(s, own);
  return { from: activeAddressOf(s.world, stranger, s.rng), to: own, value: dustWei(s.rng) };
}
