/**
 * Top-k quality of ranked lists against held-out relevant items (binary relevance),
 * averaged over users: precision@k, recall@k and nDCG@k.
 */

export interface MetricsAtK {
  k: number;
  precision: number;
  recall: number;
  ndcg: number;
}

export function metricsAtK(lists: ReadonlyMap<number, readonly number[]>, relevant: ReadonlyMap<number, ReadonlySet<number>>, k: number): MetricsAtK {
  let precision = 0;
  let recall = 0;
  let ndcg = 0;
  for (const [user, wanted] of relevant) {
    const list = lists.get(user) ?? [];
    let hits = 0;
    let dcg = 0;
    for (let i = 0; i < Math.min(k, list.length); i++) {
      if (wanted.has(list[i]!)) {
        hits++;
        dcg += 1 / Math.log2(i + 2);
      }
    }
    let ideal = 0;
    for (let i = 0; i < Math.min(k, wanted.size); i++) ideal += 1 / Math.log2(i + 2);
    precision += hits / k;
    recall += hits / wanted.size;
    ndcg += ideal > 0 ? dcg / ideal : 0;
  }
  const users = Math.max(1, relevant.size);
  return { k, precision: precision / users, recall: recall / users, ndcg: ndcg / users };
}
