/**
 * The lists of a world worked out by hand, as its tests compare them: each row's candidate
 * and the user its reason names, both without the world's profile id prefix, and its score.
 */
import { expect } from 'vitest';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import type { TestEnvironment } from './test-environment.ts';

export interface WorkedRow {
  candidate: string;
  score: number;
  subject: string;
}

const row = z.object({ candidate_id: z.string(), score: z.coerce.number(), reason_subject: z.string() });

/** The profile `prefix + name`'s list in the snapshot, in rank order. */
export async function workedList(env: TestEnvironment, snapshotId: number, prefix: string, name: string): Promise<WorkedRow[]> {
  const rows = await env.ch.query(
    sql`SELECT candidate_id, score, reason_subject FROM recommendations
        WHERE snapshot_id = ${snapshotId} AND profile_id = ${prefix + name} ORDER BY rank`,
    row,
  );
  const unprefixed = (id: string) => (id.startsWith(prefix) ? id.slice(prefix.length) : id);
  return rows.map((r) => ({ candidate: unprefixed(r.candidate_id), score: r.score, subject: unprefixed(r.reason_subject) }));
}

/** The same candidates in the same order, each with its worked-out score (to `digits` decimals) and reason. */
export function expectWorkedList(actual: readonly WorkedRow[], expected: readonly WorkedRow[], digits = 9): void {
  expect(actual.map((r) => r.candidate)).toEqual(expected.map((e) => e.candidate));
  actual.forEach((r, i) => {
    expect(r.score, r.candidate).toBeCloseTo(expected[i]!.score, digits);
    expect(r.subject, r.candidate).toBe(expected[i]!.subject);
  });
}
