import type { z } from 'zod';
import type { InsertBody } from '../clickhouse/insert-body.ts';

/**
 * One kind of ingested fact: its canonical input schema (JSON Lines or CSV with a header),
 * the ClickHouse table it lands in, and an example record for docs and tests.
 * The schema is a strict object (unknown fields are rejected) piped into the row as
 * inserted (snake_case columns).
 */
export interface RecordKind<Schema extends RecordSchema = RecordSchema> {
  readonly name: string;
  readonly table: string;
  readonly description: string;
  readonly schema: Schema;
  readonly example: Record<string, unknown>;
  /**
   * Optional, for the kinds ingested by the million: hand-written checks of the common
   * shape that return exactly the row `schema` would, or undefined for anything else
   * (which then goes through `schema`, valid or not). Never accepts what `schema` refuses.
   */
  readonly fastPath?: FastPath;
  /**
   * Optional, the same for a whole canonical JSON line and its INSERT: writes the line's
   * TabSeparated row (`columns`, ingested_at last) straight from the chunk's bytes into the
   * INSERT's body, or declines (and the line goes through JSON.parse, `fastPath`, `schema`).
   * Must write exactly what `tabSeparated` writes for the row `schema` makes of the line.
   */
  readonly tsvLine?: TsvLine;
}

export interface TsvLine {
  readonly columns: readonly [string, ...string[]];
  /** Writes the row of bytes [start, end) of `src` and returns true, or writes nothing and returns false. */
  write(src: Uint8Array, start: number, end: number, body: InsertBody, ingestedAt: Uint8Array): boolean;
}

export type FastPath = (record: Record<string, unknown>) => Record<string, unknown> | undefined;

export type RecordSchema = z.ZodPipe<z.ZodObject, z.ZodType>;

export function defineKind<Schema extends RecordSchema>(kind: RecordKind<Schema>): RecordKind<Schema> {
  return kind;
}

/** The input field names of a kind, in schema order (the CSV header a file should have). */
export function fieldNames(kind: RecordKind): string[] {
  return Object.keys(kind.schema.in.shape);
}
