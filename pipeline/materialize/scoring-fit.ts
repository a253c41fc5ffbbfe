/**
 * The one weight a run fits to its own follow graph: what "the candidate already follows the
 * caller" adds to a friend-of-friend score. Where follows are mostly returned (trust and
 * friendship graphs), a profile's own followers are its likeliest next follows and belong
 * at the top of its list; where they are seldom returned (votes, fan graphs), being
 * followed says little. So the weight is REC_FOLLOWS_YOU_SCALE times the odds that a
 * follow here is returned, capped at REC_FOLLOWS_YOU_MAX; a run with fewer than
 * REC_FIT_MIN_FOLLOWS follows uses REC_FOLLOWS_YOU_BONUS instead. docs/quality.md measures it.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { readRunRow, runValueSql } from './run-row.ts';
import type { ScoringParams } from './scoring.ts';

/** mat_scoring_fit: the run's follows, how many are returned, and the weight they give. */
export function scoringFitSql(snapshotId: number, params: ScoringParams): SqlFragment {
  const { defaultWeight, scale, max, minFollows } = params.followsYou;
  return sql`
    INSERT INTO mat_scoring_fit (snapshot_id, follows, returned, fitted, follows_you_weight)
    SELECT ${snapshotId}, follows, returned, toUInt8(follows >= ${minFollows}) AS fitted,
           if(fitted = 1, least(toFloat64(${max}), ${scale} * returned / greatest(1, follows - returned)), toFloat64(${defaultWeight}))
    FROM
    (
        -- Each unordered pair once: a pair followed both ways is two returned follows.
        SELECT sum(directions) AS follows, sumIf(directions, directions = 2) AS returned
        FROM
        (
            SELECT bitShiftLeft(toUInt64(least(src, dst)), 32) + greatest(src, dst) AS pair, count() AS directions
            FROM mat_follow_edges
            WHERE snapshot_id = ${snapshotId}
            GROUP BY pair
        )
    )`;
}

/**
 * The run's fitted weight as a scalar, for the scoring SQL; REC_FOLLOWS_YOU_BONUS for a
 * snapshot written before the fit existed.
 */
export function followsYouWeightSql(snapshotId: number, params: ScoringParams): SqlFragment {
  return runValueSql(snapshotId, 'mat_scoring_fit', sql`follows_you_weight`, sql`toFloat64(${params.followsYou.defaultWeight})`);
}

const scoringFitRow = z.object({
  follows: z.coerce.number(),
  returned: z.coerce.number(),
  fitted: z.coerce.number().transform((n) => n === 1),
  follows_you_weight: z.coerce.number(),
});
export type ScoringFit = z.infer<typeof scoringFitRow>;

/** What the run measured and the weight it chose (for its log line). */
export async function readScoringFit(ch: ClickHouse, snapshotId: number): Promise<ScoringFit | undefined> {
  return readRunRow(ch, 'mat_scoring_fit', snapshotId, scoringFitRow);
}
