/**
 * soulgraph_chain_head_lag_blocks{chain_id}: how many blocks on-chain ingestion is behind
 * each chain's head. The chain worker reports it after each poll:
 *
 *   const lag = chainHeadLag(deps.metrics.registry);
 *   lag.set(chainId, headBlock - lastIngestedBlock);
 *
 * Calling chainHeadLag again (another worker, another chain) returns the same gauge.
 */
import { Gauge, type Registry } from 'prom-client';

const NAME = 'soulgraph_chain_head_lag_blocks';

export interface ChainHeadLag {
  set(chainId: number, blocksBehind: number): void;
}

export function chainHeadLag(registry: Registry): ChainHeadLag {
  const gauge =
    (registry.getSingleMetric(NAME) as Gauge<'chain_id'> | undefined) ??
    new Gauge({
      name: NAME,
      help: 'Blocks between each chain head and the newest block on-chain ingestion has written',
      labelNames: ['chain_id'] as const,
      registers: [registry],
    });
  return { set: (chainId, blocksBehind) => gauge.set({ chain_id: String(chainId) }, blocksBehind) };
}
