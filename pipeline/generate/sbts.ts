/**
 * Soulbound-token issuers and mints.
 *
 * About 20 + profiles/500 issuers, each tagged with 1-3 categories; its first category
 * decides its name suffix, badges and RDF predicate. Issuer popularity follows Zipf's law,
 * and every community also favors three issuers, so badges (and the interest tags derived
 * from their categories) cluster by community. About 2 SBTs per profile.
 */
import { CATALOG_UPDATED_AT, CHAIN_END, CHAIN_START, isoTime, timeBetween } from './chain-clock.ts';
import { idDomain } from './hex-ids.ts';
import type { KindSource } from './kind-source.ts';
import { ISSUER_WORDS, slug } from './names.ts';
import { hashWords, rngFor, streamKey, type Rng } from './random.ts';
import { activeAddressOf } from './wallets.ts';
import type { World } from './world.ts';

const CATEGORIES = ['GameFi', 'DeFi', 'DAO', 'NFT', 'Social', 'Event', 'Education', 'Infrastructure'] as const;
type Category = (typeof CATEGORIES)[number];

const STYLE: Record<Category, { suffix: string; predicate: string; badges: readonly string[] }> = {
  GameFi: { suffix: 'Guild', predicate: 'achieved', badges: ['Season 1 Champion', 'Guild Member', 'Raid Leader'] },
  DeFi: { suffix: 'Finance', predicate: 'participatedIn', badges: ['Early Liquidity Provider', 'Staker', 'Loyal Lender'] },
  DAO: { suffix: 'DAO', predicate: 'memberOf', badges: ['Voter', 'Delegate', 'Core Contributor'] },
  NFT: { suffix: 'Studio', predicate: 'collected', badges: ['Collector', 'Curator', 'Genesis Holder'] },
  Social: { suffix: 'Circle', predicate: 'verifiedBy', badges: ['Verified Human', 'Community Member', 'Top Poster'] },
  Event: { suffix: 'Summit', predicate: 'attended', badges: ['Attendee 2023', 'Attendee 2024', 'Speaker'] },
  Education: { suffix: 'Academy', predicate: 'completed', badges: ['Graduate', 'Solidity 101', 'Mentor'] },
  Infrastructure: { suffix: 'Labs', predicate: 'operates', badges: ['Node Operator', 'Validator', 'Testnet Pioneer'] },
};

export interface SbtIssuer {
  readonly address: string;
  readonly name: string;
  readonly categories: readonly Category[];
  readonly predicate: string;
  readonly badges: readonly string[];
  /** One image per badge. */
  readonly images: readonly string[];
}

const CATALOG = streamKey('sbt-catalog');
const TASTE = streamKey('sbt-taste');
const MINTS = streamKey('sbt-mints');
const POPULARITY_EXPONENT = 1.0;
const FAVORITES_PER_COMMUNITY = 3;
const MEAN_MINTS = 2;
/** Token ids are profile * MAX_MINTS + mint, so they never repeat within a contract. */
const MAX_MINTS = 16;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

export function sbtIssuers(world: World): SbtIssuer[] {
  const count = 20 + Math.floor(world.profiles / 500);
  return Array.from({ length: count }, (_, index) => issuerAt(world, index));
}

function issuerAt(world: World, index: number): SbtIssuer {
  const rng = rngFor(world.seed, CATALOG, index);
  const categories = categoriesOf(rng);
  const style = STYLE[categories[0]!];
  const edition = Math.floor(index / ISSUER_WORDS.length);
  const name = `${ISSUER_WORDS[index % ISSUER_WORDS.length]} ${style.suffix}${edition > 0 ? ` ${edition + 1}` : ''}`;
  return {
    address: world.ids.address(idDomain.sbtContract, index),
    name,
    categories,
    predicate: style.predicate,
    badges: style.badges,
    images: style.badges.map((_, badge) => ipfsImage(world, index, badge)),
  };
}

/** 1-3 distinct categories. */
function categoriesOf(rng: Rng): Category[] {
  const wanted = rng.between(1, 3);
  const chosen: Category[] = [];
  while (chosen.length < wanted) {
    const category = rng.pick(CATEGORIES);
    if (!chosen.includes(category)) chosen.push(category);
  }
  return chosen;
}

/** A CIDv1-looking ipfs:// URL ("bafkrei" + 52 base32 characters). */
function ipfsImage(world: World, issuer: number, badge: number): string {
  let cid = 'bafkrei';
  for (let i = 0; i < 52; i++) cid += BASE32[hashWords(world.seed.lo, world.seed.hi, CATALOG, issuer * 8 + badge, i) & 31];
  return `ipfs://${cid}`;
}

export function sbtIssuerSource(world: World): KindSource {
  const issuers = sbtIssuers(world);
  return {
    kind: 'sbt-issuers',
    units: issuers.length,
    recordsOf: (index) => {
      const issuer = issuers[index]!;
      return [
        {
          chainId: world.chainId,
          contract: issuer.address,
          issuer: issuer.name,
          categories: issuer.categories,
          updatedAt: CATALOG_UPDATED_AT,
        },
      ];
    },
  };
}

export function sbtMintSource(world: World): KindSource {
  const issuers = sbtIssuers(world);
  return { kind: 'sbt-mints', units: world.profiles, recordsOf: (profile) => sbtMintsOf(world, issuers, profile) };
}

/** The SBTs minted to `owner`, at most one per issuer. */
function sbtMintsOf(world: World, issuers: readonly SbtIssuer[], owner: number): object[] {
  const rng = rngFor(world.seed, MINTS, owner);
  const wanted = Math.min(MAX_MINTS, rng.poisson(MEAN_MINTS));
  const held: number[] = [];
  for (let attempt = 0; held.length < wanted && attempt < wanted * 3; attempt++) {
    const index = issuerIndexFor(world, issuers.length, owner, rng);
    if (!held.includes(index)) held.push(index);
  }
  return held.map((index, mint) => {
    const tokenId = String(owner * MAX_MINTS + mint);
    return sbtMintRecord(world, issuers[index]!, tokenId, activeAddressOf(world, owner, rng), rng);
  });
}

export function sbtMintRecord(world: World, issuer: SbtIssuer, tokenId: string, owner: string, rng: Rng): object {
  const badge = rng.below(issuer.badges.length);
  const badgeName = issuer.badges[badge]!;
  return {
    chainId: world.chainId,
    contract: issuer.address,
    tokenId,
    owner,
    sbtName: `${issuer.name}: ${badgeName}`,
    rdfData: `:${owner} :${issuer.predicate} :${slug(issuer.name)}-${slug(badgeName)} .`,
    imageUrl: issuer.images[badge],
    metadataUrl: `https://meta.${slug(issuer.name)}.example/sbt/${tokenId}.json`,
    mintedAt: isoTime(timeBetween(rng, CHAIN_START, CHAIN_END)),
  };
}

/** A globally popular issuer (Zipf) or one of the owner's community favorites. */
function issuerIndexFor(world: World, count: number, owner: number, rng: Rng): number {
  if (rng.chance(0.5)) return rng.powerLawRank(count, POPULARITY_EXPONENT);
  const favorite = rng.below(FAVORITES_PER_COMMUNITY);
  return hashWords(world.seed.lo, world.seed.hi, TASTE, world.communities.of(owner), favorite) % count;
}
