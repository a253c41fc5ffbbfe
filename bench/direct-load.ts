/**
 * What bench:materialize loads a generated world with: each
 * kind's rows straight into its table, validated by the kind's schema, stamped as ingested
 * `ingestedBeforeSeconds` ago. The benches measure the nightly run, not ingestion.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { z } from 'zod';
import type { ClickHouse } from '../shared/clickhouse/client.ts';
import { recordKinds, type KindName } from '../shared/records/kinds.ts';

export async function loadDirectly(ch: ClickHouse, kind: KindName, file: string, ingestedBeforeSeconds: number): Promise<number> {
  const schema = recordKinds[kind].schema as z.ZodType<Record<string, unknown>>;
  const ingestedAt = Math.floor(Date.now() / 1000) - ingestedBeforeSeconds;
  let batch: Record<string, unknown>[] = [];
  let rows = 0;
  // profile_identities is not loaded: the run reads profiles' addresses, the API reads identities.
  const flush = async () => {
    rows += await ch.insert(recordKinds[kind].table, batch);
    batch = [];
  };
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    batch.push({ ...schema.parse(JSON.parse(line)), ingested_at: ingestedAt });
    if (batch.length === 200_000) await flush();
  }
  if (batch.length > 0) await flush();
  return rows;
}
