/** Maps items with at most `limit` promises in flight; results keep the input order. */
export async function mapBounded<T, U>(items: readonly T[], limit: number, f: (item: T, index: number) => Promise<U>): Promise<U[]> {
  const results = new Array<U>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await f(items[i]!, i);
    }
  });
  await Promise.all(lanes);
  return results;
}
