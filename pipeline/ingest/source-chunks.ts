/**
 * Reads a source file as chunks of raw rows with their line numbers, streaming, so a file
 * of any size is read in bounded memory. A JSON Lines chunk is the file's bytes of
 * `chunkRows` lines, not decoded (the worker decodes and parses them, so a malformed line
 * is rejected with its number instead of stopping the read); CSV rows are arrays of cells
 * plus the header.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { parse as parseCsv } from 'csv-parse';

export type SourceEncoding = 'jsonl' | 'csv';

/** `rowCount`: the chunk's rows (blank lines excluded), for progress. The rest is the job payload's body. */
export type SourceChunk =
  | { bytes: Buffer; firstLine: number; rowCount: number }
  | { header: string[]; rows: string[][]; lines: number[]; rowCount: number };

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

/**
 * Cuts the bytes into chunks of `chunkRows` non-blank lines without decoding them or
 * splitting them into line strings (the producer's main cost when it did): a chunk's
 * blocks are joined once, at a line break, so no UTF-8 character is cut.
 */
async function* jsonLineChunks(stream: NodeJS.ReadableStream, chunkRows: number): AsyncGenerator<SourceChunk> {
  let parts: Buffer[] = []; // the chunk's bytes from earlier blocks (joined once, at the cut)
  let firstLine = 1;
  let lines = 0;
  let rowCount = 0;
  let lineHasContent = false; // the line running on from an earlier block is not blank
  let firstBlock = true;
  for await (const data of stream as AsyncIterable<Buffer>) {
    // A byte-order mark (Windows editors, PowerShell) is not part of the first record.
    const block = firstBlock && hasBom(data) ? data.subarray(3) : data;
    firstBlock = false;
    let chunkStart = 0;
    let lineStart = 0;
    for (let lf = block.indexOf(LF); lf !== -1; lf = block.indexOf(LF, lineStart)) {
      if (lineHasContent || !isBlank(block, lineStart, lf)) rowCount++;
      lineHasContent = false;
      lines++;
      lineStart = lf + 1;
      if (rowCount === chunkRows) {
        yield { bytes: joined([...parts, block.subarray(chunkStart, lf)]), firstLine, rowCount };
        [parts, chunkStart, firstLine, lines, rowCount] = [[], lineStart, firstLine + lines, 0, 0];
      }
    }
    lineHasContent ||= !isBlank(block, lineStart, block.length);
    parts.push(block.subarray(chunkStart));
  }
  // The last line may have no line break.
  if (lineHasContent) rowCount++;
  if (rowCount > 0) yield { bytes: withoutFinalLf(joined(parts)), firstLine, rowCount };
}

function withoutFinalLf(bytes: Buffer): Buffer {
  return bytes.at(-1) === LF ? bytes.subarray(0, -1) : bytes;
}

function joined(parts: Buffer[]): Buffer {
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

const LF = 0x0a;

function hasBom(data: Buffer): boolean {
  return data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf;
}

/** Whether bytes [start, end) are only spaces, tabs and CRs: the same test as the worker's isBlankLine. */
function isBlank(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = bytes[i]!;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  }
  return true;
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
      yield { header, rows, lines, rowCount: rows.length };
      rows = [];
      lines = [];
    }
  }
  if (!header) throw new Error(`${file}: empty CSV file (a header line is required)`);
  if (rows.length > 0) yield { header, rows, lines, rowCount: rows.length };
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
