/**
 * Non-person addresses: exchange hot wallets and bridges that touch a large share of all
 * users, popular contracts (DEX routers, marketplaces), ERC-20 tokens, and burn addresses.
 * They are all listed in address-labels so a recommender can tell them from people.
 */
import { idDomain } from './hex-ids.ts';
import type { World } from './world.ts';

export type LabelKind = 'exchange' | 'bridge' | 'contract' | 'burn';

export interface KnownAddress {
  readonly address: string;
  readonly name: string;
  readonly kind: LabelKind;
}

export interface Token extends KnownAddress {
  readonly symbol: string;
  readonly decimals: number;
}

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const DEAD_ADDRESS = '0x000000000000000000000000000000000000dead';

/** Ordered by volume: the first one is the busiest. */
const EXCHANGE_NAMES = ['Binance 14', 'Coinbase 10', 'Kraken 4', 'OKX 7', 'Bitfinex 2', 'Gemini 3'];
const BRIDGE_NAMES = ['Arbitrum: Delayed Inbox', 'Optimism: L1 Standard Bridge', 'Polygon: PoS Bridge'];
const CONTRACT_NAMES = [
  'Uniswap V3: Router',
  'Uniswap V2: Router 2',
  '1inch: Aggregation Router',
  'OpenSea: Seaport 1.5',
  'Aave: Pool V3',
  'Lido: stETH',
  'Blur: Marketplace',
  'Curve: Router',
  'ENS: ETH Registrar Controller',
  '0x: Exchange Proxy',
];
const TOKENS = [
  { symbol: 'USDC', name: 'USD Coin', decimals: 6 },
  { symbol: 'USDT', name: 'Tether USD', decimals: 6 },
  { symbol: 'WETH', name: 'Wrapped Ether', decimals: 18 },
  { symbol: 'DAI', name: 'Dai Stablecoin', decimals: 18 },
  { symbol: 'LINK', name: 'ChainLink Token', decimals: 18 },
  { symbol: 'UNI', name: 'Uniswap', decimals: 18 },
  { symbol: 'PEPE', name: 'Pepe', decimals: 18 },
];

export function exchanges(world: World): KnownAddress[] {
  return EXCHANGE_NAMES.map((name, i) => ({ address: world.ids.address(idDomain.exchange, i), name, kind: 'exchange' }));
}

export function bridges(world: World): KnownAddress[] {
  return BRIDGE_NAMES.map((name, i) => ({ address: world.ids.address(idDomain.bridge, i), name, kind: 'bridge' }));
}

export function contracts(world: World): KnownAddress[] {
  return CONTRACT_NAMES.map((name, i) => ({ address: world.ids.address(idDomain.contract, i), name, kind: 'contract' }));
}

/** Ordered by transfer volume: stablecoins first. */
export function tokens(world: World): Token[] {
  return TOKENS.map((t, i) => ({
    ...t,
    address: world.ids.address(idDomain.token, i),
    name: `${t.name} (${t.symbol})`,
    kind: 'contract',
  }));
}

export function burnAddresses(): KnownAddress[] {
  return [
    { address: ZERO_ADDRESS, name: 'Null Address', kind: 'burn' },
    { address: DEAD_ADDRESS, name: 'Burn Address', kind: 'burn' },
  ];
}
