/**
 * `token-transfers.jsonl`: ERC-20 Transfer logs, about 2 per profile. Stablecoins dominate;
 * counterparties follow the same circle / exchange / stranger mix as ether payments.
 */
import { tokenUnits } from './amounts.ts';
import { CHAIN_END, CHAIN_START, blockNumberAt, timeBetween } from './chain-clock.ts';
import { circleCounterparty, closeContactsOf, strangerOf } from './contacts.ts';
import { idDomain } from './hex-ids.ts';
import { contracts, exchanges, tokens, type KnownAddress, type Token } from './known-addresses.ts';
import type { KindSource } from './kind-source.ts';
import { rngFor, streamKey, type Rng } from './random.ts';
import { activeAddressOf } from './wallets.ts';
import type { World } from './world.ts';

const TOKEN_TRANSFERS = streamKey('token-transfers');
const MEAN_COUNT = 2;
const MAX_COUNT = 40;

interface TokenVenues {
  readonly tokens: readonly Token[];
  readonly exchanges: readonly KnownAddress[];
  readonly contracts: readonly KnownAddress[];
}

export function tokenTransferSource(world: World): KindSource {
  const venues: TokenVenues = { tokens: tokens(world), exchanges: exchanges(world), contracts: contracts(world) };
  return { kind: 'token-transfers', units: world.profiles, recordsOf: (profile) => tokenTransfersOf(world, venues, profile) };
}

function tokenTransfersOf(world: World, venues: TokenVenues, profile: number): object[] {
  const rng = rngFor(world.seed, TOKEN_TRANSFERS, profile);
  const contacts = closeContactsOf(world, profile);
  const count = Math.min(MAX_COUNT, rng.poisson(MEAN_COUNT));
  const records: object[] = [];
  for (let sequence = 0; sequence < count; sequence++) {
    const token = venues.tokens[rng.powerLawRank(venues.tokens.length, 1.2)]!;
    const blockTime = timeBetween(rng, CHAIN_START, CHAIN_END);
    const [from, to] = partiesOf(world, venues, profile, contacts, rng);
    records.push({
      chainId: world.chainId,
      contract: token.address,
      from,
      to,
      value: tokenUnits(rng, token.decimals),
      txHash: world.ids.hash(idDomain.tokenTransfer, sequence, profile),
      logIndex: rng.below(300),
      blockNumber: blockNumberAt(blockTime),
      blockTime,
    });
  }
  return records;
}

/** [from, to] for one transfer involving `profile`. */
function partiesOf(world: World, venues: TokenVenues, profile: number, contacts: readonly number[], rng: Rng): [string, string] {
  const own = activeAddressOf(world, profile, rng);
  const exchange = venues.exchanges[rng.powerLawRank(venues.exchanges.length, 1)]!.address;
  const roll = rng.float();
  const peer =
    roll < 0.55 ? circleCounterparty(world, profile, contacts, rng) : roll < 0.65 ? strangerOf(world, profile, rng) : -1;
  if (peer >= 0) return [own, activeAddressOf(world, peer, rng)];
  if (roll < 0.8) return [own, exchange];
  if (roll < 0.95) return [exchange, own];
  // A DEX router paying out the other side of a swap.
  return [venues.contracts[rng.powerLawRank(venues.contracts.length, 1)]!.address, own];
}
