import { describe, expect, it } from 'vitest';
import { csvRecords, MAX_QUOTED_LINES, type CsvRecord } from '../../pipeline/ingest/csv-records.ts';

async function recordsOf(text: string): Promise<CsvRecord[]> {
  const records: CsvRecord[] = [];
  async function* lines() {
    yield* text.split('\n');
  }
  for await (const record of csvRecords(lines())) records.push(record);
  return records;
}

describe('reading CSV records', () => {
  it('reads RFC 4180: quoted commas, doubled quotes, cells over several lines, empty cells', async () => {
    expect(await recordsOf('a,b\n"Doe, Jane","say ""hi"""\n"two\n\nlines",\n')).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['Doe, Jane', 'say "hi"'] },
      { line: 3, cells: ['two\n\nlines', ''] },
    ]);
  });

  it('gives a stray quote its own reject and reads on at the next line', async () => {
    expect(await recordsOf('a,b\n1,2\n3,x"y\n5,6\n')).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['1', '2'] },
      { line: 3, malformed: 'a quote inside an unquoted cell at line 3 (quote the whole cell and double its quotes: "say ""hi""")', raw: '3,x"y' },
      { line: 4, cells: ['5', '6'] },
    ]);
  });

  it('rejects a quoted cell followed by something other than a comma', async () => {
    const records = await recordsOf('a,b\n3,"4"x\n5,6\n');
    expect(records[1]).toEqual({ line: 2, malformed: 'a quoted cell is closed at line 2 but followed by "x", not by a comma or the end of the line', raw: '3,"4"x' });
    expect(records[2]).toEqual({ line: 3, cells: ['5', '6'] });
  });

  it('reports a quote never closed where it opened, and reads the lines after it as records', async () => {
    expect(await recordsOf('a,b\n1,2\n"3,4\n5,6\n7,8\n')).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['1', '2'] },
      { line: 3, malformed: 'a quote opened at line 3 is never closed', raw: '"3,4' },
      { line: 4, cells: ['5', '6'] },
      { line: 5, cells: ['7', '8'] },
    ]);
  });

  it('takes a quoted cell still open after MAX_QUOTED_LINES lines for a quote never closed', async () => {
    const lines = ['a', '"open', ...Array.from({ length: MAX_QUOTED_LINES + 5 }, (_, i) => `row${i}`), 'closing"'];
    const records = await recordsOf(lines.join('\n'));
    expect(records[1]).toEqual({ line: 2, malformed: 'a quote opened at line 2 is never closed', raw: '"open' });
    expect(records[2]).toEqual({ line: 3, cells: ['row0'] });
  });

  it('skips empty lines, counting them, and a byte order mark', async () => {
    expect(await recordsOf('\uFEFFa\n\n1\n')).toEqual([
      { line: 1, cells: ['a'] },
      { line: 3, cells: ['1'] },
    ]);
  });
});
