/**
 * Paths no reason can name. A caller p and a candidate c are also linked when they follow the
 * same profile z (p -> z <- c) and when c follows someone who follows p (c -> z -> p). The
 * interface's reasons cannot say either truthfully ("followed by z" would be false: z does not
 * follow c), so these paths never make a candidate. Where a run's fit finds that they rank its
 * held-out follows better (unnamed-paths-fit.ts), they reorder each list's first REC_TOP_K
 * candidates, each of which has a reason of its own: p's score gains, for every such z,
 * UNNAMED_PATH_SHARE of the path weight the run chose (path-weight.ts) of z's degree (its
 * followers for p -> z <- c, whom it follows for c -> z -> p), and the reason stays the one
 * the candidate had.
 *
 * They matter where follows are seldom returned: on Epinions with each mutual pair kept one
 * way, Adamic-Adar over follows either way ranked better than the named paths alone, and
 * these are the paths it counts that they do not (docs/quality.md). Where follows are
 * returned, the paths back through followers say the same more precisely, and the fit leaves
 * these off.
 */
import { identifier, sql, type SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { pairKey, degreesSql, type CallerFacts } from './caller-facts.ts';
import { pathWeightSql } from './path-weight.ts';

/**
 * What an unnamed path weighs, as a share of a named path through a middle of the same degree.
 * Measured on one-way Epinions' training follows (docs/quality.md): R@50 alike from a quarter
 * to a half, less at one; where the fit turns them on at all, a half.
 */
export const UNNAMED_PATH_SHARE = 0.5;

/**
 * (p, z, w): each caller's neighbours z (whom it follows, and who follows it) and what an
 * unnamed path through each weighs: a share of the run's path weight of its degree (its
 * followers for a followee, whom it follows for a follower). A caller with neither has no row.
 */
export function neighboursSql(snapshotId: number, follows: Pick<CallerFacts, 'followees' | 'followers'>): SqlFragment {
  const weight = (degree: string) => sql`${UNNAMED_PATH_SHARE} * ${pathWeightSql(snapshotId, identifier(degree))}`;
  return sql`
    SELECT p, z, ${weight('followers')} AS w
    FROM (SELECT p, f AS z FROM (${follows.followees})) AS followed
    ALL INNER JOIN
    (
        SELECT pid AS z, followers FROM mat_follower_counts
        WHERE snapshot_id = ${snapshotId} AND pid IN (SELECT f FROM (${follows.followees}))
    ) AS counts USING z
    UNION ALL
    SELECT p, z, ${weight('degree')} AS w
    FROM (SELECT p, c AS z FROM (${follows.followers})) AS following
    ALL INNER JOIN
    (
        SELECT f AS z, degree FROM (${degreesSql(snapshotId, follows, sql`SELECT c FROM (${follows.followers})`)})
    ) AS degrees USING z`;
}

/**
 * `listed`'s rows (p, c, and whatever else) with u: what the unnamed paths between p and c
 * weigh in all, the weights of the neighbours of p (`neighbours`: neighboursSql) that c
 * follows among `edges` (mat_follow_edges rows, filtered). Each row looks its candidate up
 * with each of its caller's neighbours in one set of those follows. The neighbours' columns
 * are read outside the lambda (ClickHouse 18.16 does not see a column used only inside one)
 * and the candidate goes in as an array of its own beside them.
 */
export function unnamedWeightsSql(listed: SqlFragment, neighbours: SqlFragment, edges: SqlFragment): SqlFragment {
  const follows = sql`(SELECT ${pairKey('src', 'dst')} FROM ${edges} AND dst IN (SELECT z FROM (${neighbours})))`;
  return sql`
    SELECT *, arraySum(arrayMap((z, w, x) -> if(bitShiftLeft(toUInt64(x), 32) + z IN ${follows}, w, 0), zs, ws, arrayResize([c], length(zs), c))) AS u
    FROM (${listed}) AS listed
    ALL LEFT JOIN (SELECT p, groupArray(z) AS zs, groupArray(w) AS ws FROM (${neighbours}) GROUP BY p) AS neighbours USING p`;
}
