import type { z } from 'zod';

/**
 * One kind of ingested fact: its canonical input schema (JSON Lines or CSV with a header),
 * the ClickHouse table it lands in, and an example record for docs and tests.
 * The schema's output is the row as inserted (snake_case columns).
 */
export interface RecordKind<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly table: string;
  readonly description: string;
  readonly schema: Schema;
  readonly example: Record<string, unknown>;
}

export function defineKind<Schema extends z.ZodType>(kind: RecordKind<Schema>): RecordKind<Schema> {
  return kind;
}
