/**
 * Reads a source file as chunks of raw rows with their line numbers, streaming, so a file
 * of any size is read in bounded memory. JSON Lines rows stay strings (the worker parses
 * them, so a malformed line is rejected with its number instead of stopping the read);
 * CSV rows are arrays of cells plus the header.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parse as parseCsv } from 'csv-parse';

export type SourceEncoding = 'jsonl' | 'csv';

export interface SourceChunk {
  header?: string[];
  rows: string[] | string[][];
  lines: number[];
}

export interface ReadProgress {
  bytesRead: number;
  totalBytes: number;
}

/** JSON Lines for .jsonl/.ndjson/.json (ethereum-etl writes JSON lines as .json), CSV for .csv. */
export function encodingOf(file: string): SourceEncoding {
  if (/\.(jsonl|ndjson|json)$/i.test(file)) return 'jsonl';
  if (/\.csv$/i.test(file)) return 'csv';
  throw new Error(`${file}: unknown file type; use .jsonl (JSON Lines) or .csv (with a header)`);
}

export async function* readSourceChunks(
  file: string,
  chunkRows: number,
  onProgress: (p: ReadProgress) => void = () => {},
): AsyncGenerator<SourceChunk> {
  const totalBytes = (await stat(file)).size;
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  let bytesRead = 0;
  stream.on('data', (data) => {
    bytesRead += data.length;
    onProgress({ bytesRead, totalBytes });
  });
  if (encodingOf(file) === 'jsonl') yield* jsonLineChunks(stream, chunkRows);
  else yield* csvChunks(stream, chunkRows, file);
}

async function* jsonLineChunks(stream: NodeJS.ReadableStream, chunkRows: number): AsyncGenerator<SourceChunk> {
  let rows: string[] = [];
  let lines: number[] = [];
  let lineNumber = 0;
  for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
    lineNumber++;
    // A byte-order mark (Windows editors, PowerShell) is not part of the first record.
    const line = lineNumber === 1 ? text.replace(/^\uFEFF/, '') : text;
    if (line.trim() === '') continue;
    rows.push(line);
    lines.push(lineNumber);
    if (rows.length >= chunkRows) {
      yield { rows, lines };
      rows = [];
      lines = [];
    }
  }
  if (rows.length > 0) yield { rows, lines };
}

async function* csvChunks(stream: NodeJS.ReadableStream, chunkRows: number, file: string): AsyncGenerator<SourceChunk> {
  // relax_column_count: a row with the wrong number of cells reaches the worker, which
  // rejects that one line; it must not abort the whole file.
  const parser = stream.pipe(parseCsv({ bom: true, info: true, relax_column_count: true, skip_empty_lines: true }));
  let header: string[] | undefined;
  let rows: string[][] = [];
  let lines: number[] = [];
  // info.lines is the line a record ends on; a record with quoted newlines starts earlier.
  // It starts after the previous record's last line and the empty lines skipped since.
  let previousEnd = 0;
  let previousEmpty = 0;
  for await (const { record, info } of parser as AsyncIterable<{
    record: string[];
    info: { lines: number; empty_lines: number };
  }>) {
    const startLine = previousEnd + 1 + (info.empty_lines - previousEmpty);
    previousEnd = info.lines;
    previousEmpty = info.empty_lines;
    if (!header) {
      header = record.map((h) => h.trim());
      if (header.length === 0 || header.some((h) => h === '')) throw new Error(`${file}: the CSV header has blank columns`);
      continue;
    }
    rows.push(record);
    lines.push(startLine);
    if (rows.length >= chunkRows) {
      yield { header, rows, lines };
      rows = [];
      lines = [];
    }
  }
  if (!header) throw new Error(`${file}: empty CSV file (a header line is required)`);
  if (rows.length > 0) yield { header, rows, lines };
}

/** The header of a CSV file (its first record), or undefined for an empty file. */
export async function readCsvHeader(file: string): Promise<string[] | undefined> {
  const stream = createReadStream(file);
  const parser = stream.pipe(parseCsv({ bom: true, relax_column_count: true, skip_empty_lines: true, to: 1 }));
  try {
    for await (const record of parser as AsyncIterable<string[]>) return record.map((h) => h.trim());
    return undefined;
  } finally {
    stream.destroy();
  }
}
