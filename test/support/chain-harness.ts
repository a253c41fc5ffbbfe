/** Shared set-up of the chain tests: a Hardhat node, the metadata host, and CHAINS pointing at the node. */
import type { HardhatNode } from './hardhat-node.ts';

export function chainSettings(node: HardhatNode, overrides: { id?: number; confirmations?: number; blocksPerJob?: number } = {}): Record<string, string> {
  return {
    CHAINS: JSON.stringify([{ id: overrides.id ?? 31337, rpcUrls: [node.url], confirmations: overrides.confirmations ?? 0, blocksPerJob: overrides.blocksPerJob ?? 5 }]),
    METADATA_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
    METADATA_TIMEOUT_MS: '2000',
  };
}
