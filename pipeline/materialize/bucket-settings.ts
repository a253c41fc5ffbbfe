/**
 * Settings of a bucket's statement: those of every heavy statement (scoring.ts), with the
 * ClickHouse server's threads shared among the MATERIALIZE_CONCURRENCY buckets a worker runs
 * at once. A bucket's GROUP BY keeps one hash table per thread, each holding most pairs:
 * on 2 cores, two buckets at one thread each stay under the spill threshold that one
 * bucket at two threads crosses, and finish the run sooner (docs/benchmarks.md).
 */
import { z } from 'zod';
import type { ClickHouse, QuerySettings } from '../../shared/clickhouse/client.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import type { Config } from '../../shared/config.ts';
import { materializeQuerySettings } from './scoring.ts';

export async function bucketQuerySettings(ch: ClickHouse, config: Config): Promise<QuerySettings> {
  const [row] = await ch.query(
    sql`SELECT value FROM system.settings WHERE name = 'max_threads'`,
    z.object({ value: z.string() }),
  );
  // 'auto(N)' on newer servers, 'N' on 18.16.
  const serverThreads = Number(/\d+/.exec(row?.value ?? '')?.[0] ?? 1);
  const threads = Math.max(1, Math.floor(serverThreads / config.MATERIALIZE_CONCURRENCY));
  return { ...materializeQuerySettings(config), max_threads: threads };
}
