/**
 * Candidates from the three signals beside the app's follows (graph/signal-graphs.ts): whom
 * p's handle follows on the social network, p's on-chain counterparties, and the holders of
 * the collections p holds (each collection passes on its `perCollection` most followed
 * holders; its weight still counts every holder).
 */
import type { SignalGraphs } from '../graph/signal-graphs.ts';
import { NO_SLOT, type CandidateTable } from './candidate-table.ts';
import { F } from './features.ts';
import type { OwnFacts } from './own-facts.ts';

export function addSignals(table: CandidateTable, s: SignalGraphs, own: OwnFacts, perCollection: number): void {
  for (const c of own.social) {
    const slot = table.slot(c);
    if (slot !== NO_SLOT) table.set(slot, F.social, 1);
  }
  const cp = own.counterparties;
  for (let i = 0; i < cp.profile.length; i++) {
    const slot = table.slot(cp.profile[i]!);
    if (slot === NO_SLOT) continue;
    table.set(slot, F.counterparty, cp.weight[i]!);
    table.chain[slot] = cp.chainId[i]!;
    table.transfers[slot] = cp.transfers[i]!;
    table.lastTransfer[slot] = cp.last[i]!;
  }
  for (const collection of own.holdings) {
    const weight = s.collections.weight[collection]!;
    const start = s.holders.offsets[collection]!;
    // One more than the share: the profile itself may be among the holders.
    const last = Math.min(s.holders.offsets[collection + 1]!, start + perCollection + 1);
    for (let j = start; j < last; j++) {
      const slot = table.slot(s.holders.targets[j]!);
      if (slot === NO_SLOT) continue;
      table.add(slot, F.nft, weight);
      table.collections[slot]!++;
      // The rarest collection names the pair; equal ones, the lower number (collections are numbered rarest first).
      const held = table.collection[slot]!;
      if (held === NO_SLOT || weight > s.collections.weight[held]! || (weight === s.collections.weight[held]! && collection < held)) table.collection[slot] = collection;
    }
  }
}
