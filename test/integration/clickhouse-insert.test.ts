import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();

// Every byte that TabSeparated escapes, quotes that array literals escape, and non-ASCII text.
const NASTY = ["tab\there", 'new\nline', 'carriage\rreturn', 'back\\slash', "it's", 'nul\0byte', '"double"', 'emoji 🦄 ü', "\\'", ''];

describe('ClickHouse inserts (TabSeparated)', () => {
  it('stores every string, list and time exactly as given', async () => {
    await env.ch.command(sql`
      CREATE TABLE roundtrip (id UInt32, text String, list Array(String), at DateTime, maybe Nullable(DateTime), big UInt64)
      ENGINE = MergeTree ORDER BY id`);
    const rows = NASTY.map((text, id) => ({
      id,
      text,
      list: [text, `${text}!`],
      at: [0, 5, 946_684_800, 1_700_000_000, 4_294_967_295][id % 5]!,
      maybe: id % 2 === 0 ? null : 86_400,
      big: '18446744073709551615',
    }));
    await env.ch.insert('roundtrip', rows);

    const stored = await env.ch.query(
      sql`SELECT id, text, list, toUnixTimestamp(at) AS at, toUnixTimestamp(maybe) AS maybe, toString(big) AS big FROM roundtrip ORDER BY id`,
      z.object({
        id: z.coerce.number(),
        text: z.string(),
        list: z.array(z.string()),
        at: z.coerce.number(),
        maybe: z.coerce.number().nullable(),
        big: z.string(),
      }),
    );
    expect(stored).toEqual(rows);
  });
});
