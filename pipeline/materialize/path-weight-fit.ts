/**
 * The second weight a run fits to its own follow graph (scoring-fit.ts has the first): what
 * the middle f of a friend-of-friend path weighs, by how many f follows (its degree d).
 * Adamic-Adar's 1 / ln(e + d) and resource allocation's 1 / d agree that a path through
 * someone who follows everybody says little; they disagree on how much: whether many paths
 * through busy profiles outweigh a few through quiet ones. Which ranks better depends on
 * the graph (docs/quality.md: resource allocation is ahead on ego-Facebook's friendships and
 * behind on Epinions' trust), so no constant serves every deployment.
 *
 * So the run asks its own follows (held-out-ranking.ts): it ranks the candidates of the
 * profiles it samples both ways, with their newest follows held out (mat_held_out_places,
 * held-out-places.ts), and counts the held-out follows each ranking puts in its first
 * REC_FIT_PLACES. It weighs by resource allocation only when the follows that only it finds
 * outnumber those only Adamic-Adar finds by more than twice the square root of both together
 * (a sign test at about 95 %): otherwise Adamic-Adar, the weight of every run before this fit,
 * so that where the two are even the lists do not switch from one night to the next. Nothing
 * in the test is tuned to a graph; docs/materialization.md has the why.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { beyondChanceSql, heldOutFitCountsSql } from './held-out-ranking.ts';
import { readRunRow } from './run-row.ts';
import type { ScoringParams } from './scoring.ts';
import { PATH_WEIGHTS } from './path-weight.ts';

/** mat_path_weight_fit: the held-out follows, what each weight found of them, and the choice. */
export function pathWeightFitSql(snapshotId: number, params: ScoringParams): SqlFragment {
  return sql`
    INSERT INTO mat_path_weight_fit (snapshot_id, held_out, found_adamic_adar, found_resource_allocation,
                                     only_adamic_adar, only_resource_allocation, path_weight)
    SELECT ${snapshotId}, held_out, found_a, found_b, only_a, only_b,
           if(${beyondChanceSql('only_b', 'only_a')}, 'resource-allocation', 'adamic-adar')
    FROM (${heldOutFitCountsSql(snapshotId, params, sql`by_adamic_adar`, sql`by_resource_allocation`)})`;
}

const pathWeightFitRow = z.object({
  held_out: z.coerce.number(),
  found_adamic_adar: z.coerce.number(),
  found_resource_allocation: z.coerce.number(),
  only_adamic_adar: z.coerce.number(),
  only_resource_allocation: z.coerce.number(),
  path_weight: z.enum(PATH_WEIGHTS),
});
export type PathWeightFit = z.infer<typeof pathWeightFitRow>;

/** What the run measured and the weight it chose (for its log line). */
export async function readPathWeightFit(ch: ClickHouse, snapshotId: number): Promise<PathWeightFit | undefined> {
  return readRunRow(ch, 'mat_path_weight_fit', snapshotId, pathWeightFitRow);
}
