/**
 * Whether a run's lists count paths no reason can name (unnamed-paths.ts), fitted on its
 * held-out follows (held-out-ranking.ts), and what the lists read of that choice.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { beyondChanceSql, placesCountedSql, reorderedHeldOutPlacesSql } from './held-out-ranking.ts';
import { pathRecencySql } from './path-recency.ts';
import { pathWeightSql } from './path-weight.ts';
import { readRunRow } from './run-row.ts';
import type { ScoringParams } from './scoring.ts';

/**
 * mat_unnamed_paths_fit: the held-out follows (held-out-ranking.ts; their returns left in
 * place as followers) ranked as the lists rank them (the run's path weight and recency), and
 * with each profile's first REC_TOP_K reordered with its unnamed paths; what each found, and
 * whether the lists are reordered. Off unless the follows only the reordered ranking finds
 * outnumber those only the named one finds beyond chance (beyondChanceSql), or
 * REC_UNNAMED_PATHS says always or never: where follows are returned (every dev graph but
 * one-way Epinions) they cost a little, and the reasons never show them.
 */
export function unnamedPathsFitSql(snapshotId: number, params: ScoringParams): SqlFragment {
  const named = sql`${pathWeightSql(snapshotId, sql`degree`)} * ${pathRecencySql(snapshotId, sql`moment`, sql`newest_moment`, sql`follows_anyone`)}`;
  const places = reorderedHeldOutPlacesSql(snapshotId, params, named);
  const decided =
    params.unnamedPaths === 'fit' ? beyondChanceSql('only_unnamed', 'only_named') : sql`${params.unnamedPaths === 'always' ? 1 : 0}`;
  return sql`
    INSERT INTO mat_unnamed_paths_fit (snapshot_id, held_out, found_named, found_unnamed, only_named, only_unnamed, unnamed)
    SELECT ${snapshotId}, held_out, found_a AS found_named, found_b AS found_unnamed, only_a AS only_named, only_b AS only_unnamed, toUInt8(${decided})
    FROM (${placesCountedSql(params, places)})`;
}

const unnamedPathsFitRow = z.object({
  held_out: z.coerce.number(),
  found_named: z.coerce.number(),
  found_unnamed: z.coerce.number(),
  only_named: z.coerce.number(),
  only_unnamed: z.coerce.number(),
  unnamed: z.coerce.number().transform((v) => v === 1),
});
export type UnnamedPathsFit = z.infer<typeof unnamedPathsFitRow>;

/** What the run measured and chose (for its log line, and for the lists: unnamedPathsChosen). */
export async function readUnnamedPathsFit(ch: ClickHouse, snapshotId: number): Promise<UnnamedPathsFit | undefined> {
  return readRunRow(ch, 'mat_unnamed_paths_fit', snapshotId, unnamedPathsFitRow);
}

/** Whether the snapshot's lists count unnamed paths: as its fit chose; not for a snapshot written before the fit existed. */
export async function unnamedPathsChosen(ch: ClickHouse, snapshotId: number): Promise<boolean> {
  return (await readUnnamedPathsFit(ch, snapshotId))?.unnamed ?? false;
}
