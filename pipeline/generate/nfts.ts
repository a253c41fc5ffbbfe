/**
 * NFT collections and their transfers.
 *
 * About profiles/50 collections (at least 5) with Zipf popularity: a few blue chips, a long
 * tail of rare ones. Every community also has three favorite collections, so holdings
 * cluster by community. One in five collections is ERC-1155 with a few editions.
 *
 * Each mint may be followed by a short chain of sales or gifts, generated in order, so
 * every transfer comes from the address that holds the token (enough of it, for ERC-1155)
 * at that moment.
 */
import { CATALOG_UPDATED_AT, CHAIN_END, CHAIN_START, DAY, blockNumberAt, timeBetween } from './chain-clock.ts';
import { strangerOf } from './contacts.ts';
import { idDomain } from './hex-ids.ts';
import { ZERO_ADDRESS } from './known-addresses.ts';
import type { KindSource } from './kind-source.ts';
import { collectionName, collectionSymbol } from './names.ts';
import { hashFloat, hashWords, rngFor, streamKey, type Rng } from './random.ts';
import { activeAddressOf } from './wallets.ts';
import type { World } from './world.ts';

type NftStandard = 'ERC-721' | 'ERC-1155';

export interface NftCollection {
  readonly address: string;
  readonly name: string;
  readonly symbol: string;
  readonly standard: NftStandard;
  /** ERC-1155 token ids are 1..editions; ERC-721 ids are unique per mint. */
  readonly editions: number;
}

const CATALOG = streamKey('nft-catalog');
const TASTE = streamKey('nft-taste');
const TRANSFERS = streamKey('nft-transfers');
const PROFILES_PER_COLLECTION = 50;
const POPULARITY_EXPONENT = 1.3;
const FAVORITES_PER_COMMUNITY = 3;
const MEAN_MINTS = 1.2;
/** Mints per profile; ERC-721 token ids are profile * MAX_MINTS + mint, so they never repeat. */
const MAX_MINTS = 16;
/** Room for every hop of every mint after the mint itself. */
const LATEST_MINT = CHAIN_END - 100 * DAY;

export function nftCollections(world: World): NftCollection[] {
  const count = Math.max(5, Math.round(world.profiles / PROFILES_PER_COLLECTION));
  return Array.from({ length: count }, (_, index) => collectionAt(world, index));
}

function collectionAt(world: World, index: number): NftCollection {
  const name = collectionName(index);
  const multiEdition = hashFloat(world.seed, CATALOG, index, 1) < 0.2;
  return {
    address: world.ids.address(idDomain.nftCollection, index),
    name,
    symbol: collectionSymbol(name, index),
    standard: multiEdition ? 'ERC-1155' : 'ERC-721',
    editions: multiEdition ? 3 + (hashWords(world.seed.lo, world.seed.hi, CATALOG, index, 2) % 25) : 0,
  };
}

export function nftCollectionSource(world: World): KindSource {
  const collections = nftCollections(world);
  return {
    kind: 'nft-collections',
    units: collections.length,
    recordsOf: (index) => {
      const c = collections[index]!;
      return [{ chainId: world.chainId, contract: c.address, name: c.name, symbol: c.symbol, updatedAt: CATALOG_UPDATED_AT }];
    },
  };
}

export function nftTransferSource(world: World): KindSource {
  const collections = nftCollections(world);
  return { kind: 'nft-transfers', units: world.profiles, recordsOf: (profile) => nftTransfersOf(world, collections, profile) };
}

/** One movement of a token: its mint (from the zero address) or a later hop. */
interface Move {
  readonly from: string;
  readonly to: string;
  readonly amount: number;
  readonly at: number;
}

/** The mints `minter` made, each followed by that token's later hops. */
function nftTransfersOf(world: World, collections: readonly NftCollection[], minter: number): object[] {
  const rng = rngFor(world.seed, TRANSFERS, minter);
  const mints = Math.min(MAX_MINTS, rng.poisson(MEAN_MINTS));
  const records: object[] = [];
  for (let mint = 0; mint < mints; mint++) {
    const collection = collections[collectionIndexFor(world, collections.length, minter, rng)]!;
    const tokenId = tokenIdFor(collection, minter, mint, rng);
    for (const move of provenanceOf(world, collection, minter, rng)) {
      records.push({
        chainId: world.chainId,
        contract: collection.address,
        tokenId,
        from: move.from,
        to: move.to,
        amount: String(move.amount),
        standard: collection.standard,
        blockNumber: blockNumberAt(move.at),
        blockTime: move.at,
        logIndex: rng.below(200),
        txHash: world.ids.hash(idDomain.nftTransfer, records.length, minter),
      });
    }
  }
  return records;
}

/** Global taste (Zipf over the catalog) or one of the minter's community favorites. */
function collectionIndexFor(world: World, count: number, minter: number, rng: Rng): number {
  if (rng.chance(0.7)) return rng.powerLawRank(count, POPULARITY_EXPONENT);
  const community = world.communities.of(minter);
  const favorite = rng.below(FAVORITES_PER_COMMUNITY);
  return hashWords(world.seed.lo, world.seed.hi, TASTE, community, favorite) % count;
}

/** ERC-721: unique per minted token. ERC-1155: one of the collection's editions, shared by many holders. */
function tokenIdFor(collection: NftCollection, minter: number, mint: number, rng: Rng): string {
  return collection.standard === 'ERC-721' ? String(minter * MAX_MINTS + mint) : String(rng.between(1, collection.editions));
}

/**
 * The token's mint to `minter` and its later hops, oldest first. Each hop leaves from the
 * previous receiver and moves at most what that receiver got, so holdings never go negative.
 */
function provenanceOf(world: World, collection: NftCollection, minter: number, rng: Rng): Move[] {
  let holder = minter;
  let holderAddress = activeAddressOf(world, minter, rng);
  let amount = collection.standard === 'ERC-721' ? 1 : rng.between(1, 5);
  let at = timeBetween(rng, CHAIN_START, LATEST_MINT);
  const moves: Move[] = [{ from: ZERO_ADDRESS, to: holderAddress, amount, at }];
  for (let hop = hopsAfterMint(rng); hop > 0; hop--) {
    // Half the buyers come from the seller's community, half from anywhere (marketplace sales).
    const next = rng.chance(0.5) ? world.communities.anyPeer(holder, rng) : strangerOf(world, holder, rng);
    if (next < 0) break;
    const nextAddress = activeAddressOf(world, next, rng);
    amount = rng.between(1, amount);
    at += rng.between(DAY, 30 * DAY);
    moves.push({ from: holderAddress, to: nextAddress, amount, at });
    holder = next;
    holderAddress = nextAddress;
  }
  return moves;
}

/** Most tokens stay with the minter; some are sold on, a few several times. */
function hopsAfterMint(rng: Rng): number {
  const roll = rng.float();
  return roll < 0.72 ? 0 : roll < 0.9 ? 1 : roll < 0.97 ? 2 : 3;
}
