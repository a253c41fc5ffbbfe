import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, it, expect } from 'vitest';
import { encodingOf, readSourceChunks, type ReadProgress, type SourceChunk } from '../../pipeline/ingest/source-chunks.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'soulgraph-source-chunks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function file(name: string, content: string | Buffer): string {
  const full = path.join(dir, `${++fileCount}-${name}`);
  writeFileSync(full, content);
  return full;
}

/** The chunks, a JSON Lines chunk's bytes shown as their text. */
async function chunksOf(file: string, chunkRows = 1000, onProgress?: (p: ReadProgress) => void) {
  const chunks = [];
  for await (const chunk of readSourceChunks(file, chunkRows, onProgress)) chunks.push(readable(chunk));
  return chunks;
}

function readable(chunk: SourceChunk) {
  if (!('bytes' in chunk)) return chunk;
  const { bytes, ...rest } = chunk;
  return { text: bytes.toString('utf8'), ...rest };
}

function csv(chunk: ReturnType<typeof readable>) {
  if (!('rows' in chunk)) throw new Error('expected a CSV chunk');
  return chunk;
}

describe('encodingOf', () => {
  it.each([
    ['a.jsonl', 'jsonl'],
    ['a.ndjson', 'jsonl'],
    ['transactions.json', 'jsonl'],
    ['A.JSONL', 'jsonl'],
    ['a.csv', 'csv'],
    ['dir.v2/A.CSV', 'csv'],
  ])('reads %s as %s', (name, encoding) => {
    expect(encodingOf(name)).toBe(encoding);
  });

  it.each([['a.txt'], ['a.csv.gz'], ['a'], ['a.parquet']])('throws on the unknown file type of %s', (name) => {
    expect(() => encodingOf(name)).toThrow(`${name}: unknown file type; use .jsonl (JSON Lines) or .csv (with a header)`);
  });

  it('throws before reading when the extension is unknown', async () => {
    await expect(chunksOf(file('data.txt', '{"a":1}\n'))).rejects.toThrow(/unknown file type/);
  });
});

describe('JSON lines', () => {
  it('yields the text of chunkRows lines with the 1-based number of its first line', async () => {
    const chunks = await chunksOf(file('a.jsonl', '{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n{"n":5}\n'), 2);
    expect(chunks).toEqual([
      { text: '{"n":1}\n{"n":2}', firstLine: 1, rowCount: 2 },
      { text: '{"n":3}\n{"n":4}', firstLine: 3, rowCount: 2 },
      { text: '{"n":5}', firstLine: 5, rowCount: 1 },
    ]);
  });

  it('yields the bytes as they are in the file, decoding nothing', async () => {
    const bytes = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a, 0x7b, 0x7d, 0x0a]); // {"\xff\xfe"} and {}: not UTF-8
    const chunks = [];
    // A copy of each: the reader reuses its buffer for the next chunk.
    for await (const chunk of readSourceChunks(file('raw.jsonl', bytes), 1)) chunks.push('bytes' in chunk ? { ...chunk, bytes: Buffer.from(chunk.bytes) } : chunk);
    expect(chunks).toEqual([
      { bytes: bytes.subarray(0, 6), firstLine: 1, rowCount: 1 },
      { bytes: bytes.subarray(7, 9), firstLine: 2, rowCount: 1 },
    ]);
  });

  it('yields no empty trailing chunk when the rows divide evenly', async () => {
    const chunks = await chunksOf(file('even.jsonl', '{"n":1}\n{"n":2}\n'), 2);
    expect(chunks).toEqual([{ text: '{"n":1}\n{"n":2}', firstLine: 1, rowCount: 2 }]);
  });

  it('keeps blank lines in the text (they count for line numbers) but not in rowCount', async () => {
    const chunks = await chunksOf(file('blank.jsonl', '\n{"n":1}\n   \n\n{"n":2}\n\n'));
    expect(chunks).toEqual([{ text: '\n{"n":1}\n   \n\n{"n":2}\n', firstLine: 1, rowCount: 2 }]);
  });

  it('cuts after the last row of a chunk, so the next chunk starts at its blank lines', async () => {
    const chunks = await chunksOf(file('blank-cut.jsonl', '{"n":1}\n\n\n{"n":2}\n'), 1);
    expect(chunks).toEqual([
      { text: '{"n":1}', firstLine: 1, rowCount: 1 },
      { text: '\n\n{"n":2}', firstLine: 2, rowCount: 1 },
    ]);
  });

  it('leaves CRLF line ends to the worker and takes a last line without a newline', async () => {
    const chunks = await chunksOf(file('crlf.jsonl', '{"n":1}\r\n\r\n{"n":2}'));
    expect(chunks).toEqual([{ text: '{"n":1}\r\n\r\n{"n":2}', firstLine: 1, rowCount: 2 }]);
  });

  it('drops a byte-order mark from the first line', async () => {
    const chunks = await chunksOf(file('bom.jsonl', '\uFEFF{"n":1}\n{"n":2}\n'));
    expect(chunks).toEqual([{ text: '{"n":1}\n{"n":2}', firstLine: 1, rowCount: 2 }]);
  });

  it('never cuts a multi-byte character or a line where the file is read in blocks (of 1 MiB)', async () => {
    const lines = Array.from({ length: 30_000 }, (_, n) => (n % 1000 === 0 ? '  ' : JSON.stringify({ n, name: 'Zoë 東京 🚀'.repeat(n % 7) })));
    const chunks = await chunksOf(file('utf8.jsonl', `${lines.join('\n')}\n`), 9990);
    // 9,990 rows = 10,000 lines with their 10 blank ones (each chunk starts with one).
    expect(chunks.map((c) => ('text' in c ? c.text : ''))).toEqual([0, 1, 2].map((i) => lines.slice(i * 10_000, (i + 1) * 10_000).join('\n')));
    expect(chunks.map((c) => ('text' in c ? c.firstLine : 0))).toEqual([1, 10_001, 20_001]);
    expect(chunks.map((c) => c.rowCount)).toEqual([9990, 9990, 9990]);
  });

  it('passes a malformed line through for the worker to reject', async () => {
    const chunks = await chunksOf(file('bad.jsonl', '{"n":1}\n{"n":\n'));
    expect(chunks).toEqual([{ text: '{"n":1}\n{"n":', firstLine: 1, rowCount: 2 }]);
  });

  it('yields nothing for an empty file or one of blank lines', async () => {
    expect(await chunksOf(file('empty.jsonl', ''))).toEqual([]);
    expect(await chunksOf(file('blank-only.jsonl', '\n  \n\r\n'))).toEqual([]);
  });

  it('reports progress up to the file size', async () => {
    const content = '{"n":1}\n{"n":2}\n';
    const progress: ReadProgress[] = [];
    await chunksOf(file('progress.jsonl', content), 1, (p) => progress.push(p));
    expect(progress.at(-1)).toEqual({ bytesRead: content.length, totalBytes: content.length });
  });
});

describe('CSV', () => {
  it('yields the header with every chunk, and counts the header as line 1', async () => {
    const chunks = await chunksOf(file('a.csv', 'a,b\n1,2\n3,4\n5,6\n'), 2);
    expect(chunks).toEqual([
      { header: ['a', 'b'], rows: [['1', '2'], ['3', '4']], lines: [2, 3], rowCount: 2 },
      { header: ['a', 'b'], rows: [['5', '6']], lines: [4], rowCount: 1 },
    ]);
  });

  it('trims the header names', async () => {
    const chunks = await chunksOf(file('spaces.csv', ' a , b\n1,2\n'));
    expect(csv(chunks[0]!).header).toEqual(['a', 'b']);
  });

  it('drops a byte-order mark before the header', async () => {
    const chunks = await chunksOf(file('bom.csv', '\uFEFFchainId,hash\n1,0xab\n'));
    expect(chunks).toEqual([{ header: ['chainId', 'hash'], rows: [['1', '0xab']], lines: [2], rowCount: 1 }]);
  });

  it('keeps a quoted comma inside its cell', async () => {
    const chunks = await chunksOf(file('comma.csv', 'name,n\n"Doe, Jane",1\n'));
    expect(csv(chunks[0]!).rows).toEqual([['Doe, Jane', '1']]);
  });

  it('unescapes a doubled quote inside a quoted cell', async () => {
    const chunks = await chunksOf(file('quote.csv', 'name,n\n"say ""hi""",1\n'));
    expect(csv(chunks[0]!).rows).toEqual([['say "hi"', '1']]);
  });

  it('keeps a quoted newline inside its cell and numbers each record by the line it starts on', async () => {
    const chunks = await chunksOf(file('newline.csv', 'name,n\n"two\nlines",1\n"three\nmore\nlines",2\nlast,3\n'));
    expect(chunks).toEqual([
      {
        header: ['name', 'n'],
        rows: [['two\nlines', '1'], ['three\nmore\nlines', '2'], ['last', '3']],
        lines: [2, 4, 7],
        rowCount: 3,
      },
    ]);
  });

  it('skips empty lines but still counts them', async () => {
    const chunks = await chunksOf(file('gaps.csv', 'a,b\n\n1,2\n\n\n3,4\n'));
    expect(csv(chunks[0]!).lines).toEqual([3, 6]);
  });

  it('handles CRLF line ends', async () => {
    const chunks = await chunksOf(file('crlf.csv', 'a,b\r\n1,2\r\n3,4\r\n'));
    expect(chunks).toEqual([{ header: ['a', 'b'], rows: [['1', '2'], ['3', '4']], lines: [2, 3], rowCount: 2 }]);
  });

  it('passes rows with the wrong number of cells through for the worker to reject', async () => {
    const chunks = await chunksOf(file('ragged.csv', 'a,b,c\n1,2\n1,2,3,4\n'));
    expect(csv(chunks[0]!).rows).toEqual([['1', '2'], ['1', '2', '3', '4']]);
    expect(csv(chunks[0]!).lines).toEqual([2, 3]);
  });

  it('yields nothing for a file with only a header', async () => {
    expect(await chunksOf(file('header-only.csv', 'a,b\n'))).toEqual([]);
  });

  it.each([['', 'empty'], ['\n\n', 'blank lines only']])('throws on an empty CSV (%j)', async (content) => {
    const name = file('empty.csv', content);
    await expect(chunksOf(name)).rejects.toThrow(`${name}: empty CSV file (a header line is required)`);
  });

  it('throws on a header with a blank column name', async () => {
    const name = file('blank-header.csv', 'a,,c\n1,2,3\n');
    await expect(chunksOf(name)).rejects.toThrow(`${name}: the CSV header has blank columns`);
  });
});
