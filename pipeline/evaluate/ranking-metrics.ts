/**
 * Top-k quality of ranked lists against held-out relevant items (binary relevance):
 * precision@k, recall@k and nDCG@k, per user and averaged over users.
 */

export interface MetricsAtK {
  k: number;
  precision: number;
  recall: number;
  ndcg: number;
}

/** Each relevant user's metrics at k, in the order of `relevant`; a user without a list found nothing. */
export function perUserMetricsAtK(lists: ReadonlyMap<number, readonly number[]>, relevant: ReadonlyMap<number, ReadonlySet<number>>, k: number): MetricsAtK[] {
  return [...relevant].map(([user, wanted]) => {
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
    return { k, precision: hits / k, recall: hits / wanted.size, ndcg: ideal > 0 ? dcg / ideal : 0 };
  });
}

/** The mean of per-user metrics at k (0 for no users). */
export function averageMetrics(perUser: readonly MetricsAtK[], k: number): MetricsAtK {
  const users = Math.max(1, perUser.length);
  const mean = (metric: 'precision' | 'recall' | 'ndcg') => perUser.reduce((sum, m) => sum + m[metric], 0) / users;
  return { k, precision: mean('precision'), recall: mean('recall'), ndcg: mean('ndcg') };
}
