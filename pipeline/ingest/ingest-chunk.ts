/**
 * The work of one ingest job: validate the chunk, then write its rows and its rejects to
 * ClickHouse before the job completes. Every table's natural key makes the writes
 * idempotent, so a job retried after dying half way leaves the same logical rows.
 *
 * Profiles and follows are also written through to the serving copy in Redis (names and
 * `following` are read live by the API), after ClickHouse has them.
 */
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import type { IngestJob, IngestResult } from '../../shared/queues.ts';
import { recordKinds } from '../../shared/records/kinds.ts';
import type { RecordKind } from '../../shared/records/record-kind.ts';
import type { FollowRow, ProfileSummaryRow, ServingWriter } from '../serving/serving-writer.ts';
import { chunkRows } from './chunk-lines.ts';
import { linkProfileIdentities } from './profile-identities.ts';
import { tabSeparatedChunk } from './tab-separated-chunk.ts';
import { validRows, type AcceptedRow, type Reject } from './validate-chunk.ts';

const REJECT_SAMPLES = 20;
const MAX_RAW_BYTES = 4096;

export async function ingestChunk(ch: ClickHouse, job: IngestJob, jobId: string, serving?: ServingWriter): Promise<IngestResult> {
  const now = Math.floor(Date.now() / 1000);
  const rejects: Reject[] = [];
  const { table, tsvLine } = recordKinds[job.kind] as RecordKind;
  // Rows are ours (fresh from the schema): stamping them in place spares a copy per row.
  const stamp = ({ row }: AcceptedRow) => Object.assign(row, { ingested_at: now });

  let accepted: number;
  if (job.kind === 'profiles') {
    const linked = await linkProfileIdentities(ch, [...validRows(job, rejects)], rawLines(job));
    rejects.push(...linked.rejects);
    await ch.insert('profile_identities', linked.identities as unknown as Record<string, unknown>[]);
    const rows = linked.accepted.map(stamp);
    accepted = await ch.insert(table, rows);
    await serving?.profiles(rows as unknown as ProfileSummaryRow[]);
  } else if (job.kind === 'follows' && serving) {
    const rows = [...map(validRows(job, rejects), stamp)];
    accepted = await ch.insert(table, rows);
    await serving.follows(rows as unknown as FollowRow[]);
  } else if ('text' in job && job.format === 'canonical' && tsvLine) {
    // Validated and encoded in one pass over the chunk's bytes, with no row objects for canonical lines.
    const { body, rows } = tabSeparatedChunk(job, tsvLine, now, await ch.dateTimeColumns(table), rejects);
    await ch.insertTabSeparated(table, tsvLine.columns, body);
    accepted = rows;
  } else {
    accepted = await ch.insert(table, map(validRows(job, rejects), stamp));
  }
  rejects.sort((a, b) => a.line - b.line);
  await ch.insert('ingest_rejects', rejects.map((r) => rejectRow(job, jobId, r, now)));

  return {
    accepted,
    rejected: rejects.length,
    rejectSamples: rejects.slice(0, REJECT_SAMPLES).map(({ line, reason }) => ({ line, reason })),
  };
}

function* map<T, U>(items: Iterable<T>, f: (item: T) => U): Generator<U> {
  for (const item of items) yield f(item);
}

function rejectRow(job: IngestJob, jobId: string, reject: Reject, now: number) {
  return {
    kind: job.kind,
    source: job.source,
    line: reject.line,
    reason: reject.reason,
    raw: reject.raw.length > MAX_RAW_BYTES ? reject.raw.slice(0, MAX_RAW_BYTES) : reject.raw,
    job_id: jobId,
    rejected_at: now,
  };
}

function rawLines(job: IngestJob): Map<number, string> {
  return new Map([...chunkRows(job)].map(({ line, raw }) => [line, typeof raw === 'string' ? raw : JSON.stringify(raw)]));
}
