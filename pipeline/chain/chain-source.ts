/**
 * A chain source: one configured chain (CHAINS) with its viem client. Everything the chain
 * worker and the CLI do to a chain goes through one of these.
 */
import { createPublicClient, type PublicClient } from 'viem';
import { chainName, type ChainSettings, type Config } from '../../shared/config.ts';
import { rpcTransport } from './rpc-transport.ts';

export interface ChainSource {
  id: number;
  name: string;
  confirmations: number;
  blocksPerJob: number;
  client: PublicClient;
}

export function chainSources(config: Config): ChainSource[] {
  return config.CHAINS.map((c) => sourceOf(config, c));
}

function sourceOf(config: Config, c: ChainSettings): ChainSource {
  return {
    id: c.id,
    name: c.name ?? chainName(config, c.id),
    confirmations: c.confirmations,
    blocksPerJob: c.blocksPerJob,
    client: createPublicClient({ transport: rpcTransport(c.rpcUrls, { timeoutMs: config.CHAIN_RPC_TIMEOUT_MS }) }),
  };
}

const verified = new WeakSet<ChainSource>();

export class ChainMismatchError extends Error {
  override name = 'ChainMismatchError';
}

/**
 * Checks once per source that its RPC serves the configured chain (eth_chainId): a wrong URL
 * in CHAINS would otherwise write one chain's rows under another chain's id.
 */
export async function verifyChainId(source: ChainSource): Promise<void> {
  if (verified.has(source)) return;
  const served = await source.client.getChainId();
  if (served !== source.id) throw new ChainMismatchError(`the RPC of chain ${source.id} (${source.name}) serves chain ${served}: check CHAINS`);
  verified.add(source);
}

export class UnknownChainError extends Error {
  override name = 'UnknownChainError';
}

export function chainSource(config: Config, chainId: number): ChainSource {
  const settings = config.CHAINS.find((c) => c.id === chainId);
  if (!settings) {
    const known = config.CHAINS.map((c) => c.id).join(', ') || 'none';
    throw new UnknownChainError(`chain ${chainId} is not configured in CHAINS (configured: ${known})`);
  }
  return sourceOf(config, settings);
}
