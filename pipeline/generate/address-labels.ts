/**
 * `address-labels.jsonl`: every non-person address the world uses (exchanges, bridges,
 * contracts, tokens, NFT and SBT contracts, burn addresses), so a recommender can ignore
 * hubs that "know" everyone.
 */
import { CATALOG_UPDATED_AT } from './chain-clock.ts';
import { bridges, burnAddresses, contracts, exchanges, tokens, type KnownAddress } from './known-addresses.ts';
import type { KindSource } from './kind-source.ts';
import { nftCollections } from './nfts.ts';
import { sbtIssuers } from './sbts.ts';
import type { World } from './world.ts';

export function addressLabelSource(world: World): KindSource {
  const labels = labeledAddresses(world);
  return {
    kind: 'address-labels',
    units: labels.length,
    recordsOf: (index) => {
      const label = labels[index]!;
      return [
        { chainId: world.chainId, address: label.address, kind: label.kind, name: label.name, updatedAt: CATALOG_UPDATED_AT },
      ];
    },
  };
}

function labeledAddresses(world: World): KnownAddress[] {
  return [
    ...burnAddresses(),
    ...exchanges(world),
    ...bridges(world),
    ...contracts(world),
    ...tokens(world),
    ...nftCollections(world).map((c): KnownAddress => ({ address: c.address, name: c.name, kind: 'contract' })),
    ...sbtIssuers(world).map((i): KnownAddress => ({ address: i.address, name: `${i.name} SBT`, kind: 'contract' })),
  ];
}
