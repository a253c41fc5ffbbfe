/**
 * Turns one job's raw rows into table rows and rejects. Every row is decoded (JSON or CSV
 * cells), mapped from its source format, and validated by its kind's schema; a row that
 * fails any step becomes a reject naming its line and the reason, and the rest go on.
 */
import type { z } from 'zod';
import type { IngestJob } from '../../shared/queues.ts';
import { recordKinds } from '../../shared/records/kinds.ts';
import type { RecordKind } from '../../shared/records/record-kind.ts';
import { chunkRows } from './chunk-lines.ts';
import { ethereumEtlMapper } from './ethereum-etl.ts';

export interface Reject {
  line: number;
  reason: string;
  raw: string;
}

export interface AcceptedRow {
  line: number;
  row: Record<string, unknown>;
}

export interface ValidatedChunk {
  accepted: AcceptedRow[];
  rejects: Reject[];
}

type Decoded = { ok: true; record: Record<string, unknown> } | { ok: false; reason: string };

export function validateChunk(job: IngestJob): ValidatedChunk {
  const rejects: Reject[] = [];
  const accepted = [...validRows(job, rejects)];
  return { accepted, rejects };
}

/**
 * The chunk's valid rows, one at a time, in line order; each invalid one is pushed onto
 * `rejects` instead. Lazy, so that a caller can stream rows into an INSERT and let each
 * row object die young (cheap for the garbage collector) instead of holding them all.
 */
export function* validRows(job: IngestJob, rejects: Reject[]): Generator<AcceptedRow> {
  if ('malformed' in job && job.malformed) rejects.push(...job.malformed);
  const validRow = rowValidator(job);
  for (const { line, raw } of chunkRows(job)) {
    const row = validRow(raw, line, rejects);
    if (row) yield { line, row };
  }
}

export type RowValidator = (raw: string | string[], line: number, rejects: Reject[]) => Record<string, unknown> | undefined;

/** Checks one raw row of the job: returns its table row, or pushes its reject and returns undefined. */
export function rowValidator(job: IngestJob): RowValidator {
  const { schema, fastPath } = recordKinds[job.kind] as RecordKind;
  const map = job.format === 'ethereum-etl' ? ethereumEtlMapper(job.kind) : undefined;
  const header = 'header' in job ? job.header : [];
  return (raw, line, rejects) => {
    const decoded = typeof raw === 'string' ? decodeJsonLine(raw) : decodeCsvRow(raw, header);
    if (!decoded.ok) {
      rejects.push({ line, reason: decoded.reason, raw: rawText(raw) });
      return undefined;
    }
    const record = map ? map(decoded.record, job.chainId ?? 1) : decoded.record;
    // The fast path accepts only what the schema would, yielding the same row; anything
    // else, valid or not, goes through zod (which also words the reason of a reject).
    const fast = fastPath?.(record);
    if (fast) return fast;
    const parsed = (schema as z.ZodType<Record<string, unknown>>).safeParse(record);
    if (parsed.success) return parsed.data;
    rejects.push({ line, reason: describeIssues(parsed.error, record), raw: rawText(raw) });
    return undefined;
  };
}

/** Not a closure per row: under tsx every function expression costs a __name() call as well. */
function rawText(raw: string | string[]): string {
  return typeof raw === 'string' ? raw : JSON.stringify(raw);
}

function decodeJsonLine(line: string): Decoded {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, reason: `not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'a line must be one JSON object' };
  }
  // JSON.parse rounds integers beyond 2^53, and ethereum-etl writes wei values as JSON
  // numbers: read integers of 16 or more digits as their exact decimal text instead.
  if (hasUnsafeInteger(value)) value = JSON.parse(line.replace(STRING_OR_BIG_INTEGER, (t) => (t[0] === '"' ? t : `"${t}"`)));
  return { ok: true, record: value as Record<string, unknown> };
}

/** Whether JSON.parse may have rounded a field (records are flat, so the top level is enough). */
function hasUnsafeInteger(record: object): boolean {
  for (const v of Object.values(record)) {
    if (typeof v === 'number' && Math.abs(v) > Number.MAX_SAFE_INTEGER) return true;
  }
  return false;
}

/** A JSON string (left as it is), or an integer literal of 16+ digits (not part of a float). */
const STRING_OR_BIG_INTEGER = /"(?:[^"\\]|\\.)*"|(?<![\w.+-])-?\d{16,}(?![\w.])/g;

function decodeCsvRow(cells: string[], header: string[]): Decoded {
  if (cells.length !== header.length) {
    return { ok: false, reason: `expected ${header.length} columns as in the header, found ${cells.length}` };
  }
  const record: Record<string, unknown> = {};
  // An empty cell is an absent value, never 0 or '' by coercion.
  header.forEach((name, i) => {
    if (cells[i] !== '') record[name] = cells[i];
  });
  return { ok: true, record };
}

/** "blockNumber: missing; from: must be a 0x-prefixed 20-byte hex address" */
export function describeIssues(error: z.ZodError, record: Record<string, unknown>): string {
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys.join(', ')}`;
      const field = issue.path.join('.') || 'record';
      const missing = issue.path.length === 1 && record[String(issue.path[0])] === undefined;
      return `${field}: ${missing ? 'missing' : issue.message}`;
    })
    .join('; ');
}
