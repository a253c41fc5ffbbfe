/**
 * A chain source: one configured chain (CHAINS) with its viem client. Everything the chain
 * worker and the CLI do to a chain goes through one of these.
 */
import { createPublicClient, type PublicClient } from 'viem';
import { chainName, type Config } from '../../shared/config.ts';
import { rpcTransport } from './rpc-transport.ts';

export interface ChainSource {
  id: number;
  name: string;
  confirmations: number;
  blocksPerJob: number;
  client: PublicClient;
}

export function chainSources(config: Config): ChainSource[] {
  return config.CHAINS.map((c) => ({
    id: c.id,
    name: c.name ?? chainName(config, c.id),
    confirmations: c.confirmations,
    blocksPerJob: c.blocksPerJob,
    client: createPublicClient({ transport: rpcTransport(c.rpcUrls, { timeoutMs: config.CHAIN_RPC_TIMEOUT_MS }) }),
  }));
}

export class UnknownChainError extends Error {
  override name = 'UnknownChainError';
}

export function chainSource(config: Config, chainId: number): ChainSource {
  const source = chainSources(config).find((s) => s.id === chainId);
  if (!source) {
    const known = config.CHAINS.map((c) => c.id).join(', ') || 'none';
    throw new UnknownChainError(`chain ${chainId} is not configured in CHAINS (configured: ${known})`);
  }
  return source;
}
