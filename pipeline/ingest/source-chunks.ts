/**
 * Reads a source file as chunks of raw rows with their line numbers, streaming, so a file
 * of any size is read in bounded memory. A JSON Lines chunk is the file's bytes of
 * `chunkRows` lines, not decoded (the worker decodes and parses them, so a malformed line
 * is rejected with its number instead of stopping the read); CSV rows are arrays of cells
 * plus the header, and a CSV record that is not valid CSV travels with its chunk as
 * malformed, for the worker to reject with its line number (csv-records.ts).
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { MalformedRecord } from '../../shared/queues.ts';
import { csvRecords, type CsvRecord } from './csv-records.ts';

export type SourceEncoding = 'jsonl' | 'csv';

/**
 * `rowCount`: the chunk's rows (blank lines excluded), for progress. A JSON Lines chunk's
 * `bytes` are valid until the next chunk is asked for (the buffer is reused); CSV chunks are
 * the producer's to keep.
 */
export type SourceChunk =
  | { bytes: Buffer; firstLine: number; rowCount: number }
  | { header: string[]; rows: string[][]; lines: number[]; malformed?: MalformedRecord[]; rowCount: number };

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
 * splitting them into line strings (the producer's main cost when it did), at a line
 * break, so no UTF-8 character is cut. The blocks read are gathered in one buffer that is
 * reused from chunk to chunk: a fresh buffer of megabytes per chunk cost the producer more
 * in page faults and garbage collection than the rest of its work. So a chunk's `bytes`
 * are valid until the next chunk is asked for.
 */
async function* jsonLineChunks(stream: NodeJS.ReadableStream, chunkRows: number): AsyncGenerator<SourceChunk> {
  let buffer: Buffer = Buffer.allocUnsafe(1 << 20);
  let used = 0; // bytes in `buffer`: the chunk so far, from its first line
  let lineStart = 0; // where the line being read starts in `buffer`
  let firstLine = 1;
  let lines = 0;
  let rowCount = 0;
  let firstBlock = true;
  for await (const data of stream as AsyncIterable<Buffer>) {
    // A byte-order mark (Windows editors, PowerShell) is not part of the first record.
    const block = firstBlock && hasBom(data) ? data.subarray(3) : data;
    firstBlock = false;
    buffer = withRoom(buffer, used, block.length);
    block.copy(buffer, used);
    used += block.length;
    // Bytes past `used` are left over from earlier chunks: searches stop at it.
    let view = buffer.subarray(0, used);
    for (let lf = view.indexOf(LF, lineStart); lf !== -1; lf = view.indexOf(LF, lineStart)) {
      if (!isBlank(buffer, lineStart, lf)) rowCount++;
      lines++;
      lineStart = lf + 1;
      if (rowCount === chunkRows) {
        yield { bytes: buffer.subarray(0, lf), firstLine, rowCount };
        // The next chunk starts after this line break: its bytes move to the front.
        buffer.copyWithin(0, lineStart, used);
        [used, lineStart, firstLine, lines, rowCount] = [used - lineStart, 0, firstLine + lines, 0, 0];
        view = buffer.subarray(0, used);
      }
    }
  }
  // The last line may have no line break.
  if (!isBlank(buffer, lineStart, used)) rowCount++;
  if (rowCount > 0) yield { bytes: withoutFinalLf(buffer.subarray(0, used)), firstLine, rowCount };
}

/** `buffer`, or a bigger copy of its first `used` bytes, with room for `more`. */
function withRoom(buffer: Buffer, used: number, more: number): Buffer {
  if (used + more <= buffer.length) return buffer;
  const bigger = Buffer.allocUnsafe(Math.max(2 * buffer.length, used + more));
  buffer.copy(bigger, 0, 0, used);
  return bigger;
}

function withoutFinalLf(bytes: Buffer): Buffer {
  return bytes.at(-1) === LF ? bytes.subarray(0, -1) : bytes;
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
  // A row with the wrong number of cells, or a record that is not CSV, reaches the worker,
  // which rejects that one line; neither may abort the whole file.
  let header: string[] | undefined;
  let rows: string[][] = [];
  let lines: number[] = [];
  let malformed: MalformedRecord[] = [];
  const chunk = (): SourceChunk => ({ header: header!, rows, lines, ...(malformed.length > 0 ? { malformed } : {}), rowCount: rows.length + malformed.length });
  for await (const record of csvRecords(createInterface({ input: stream, crlfDelay: Infinity }))) {
    if (!header) {
      if ('malformed' in record) throw new Error(`${file}:${record.line}: the CSV header is not valid CSV: ${record.malformed}`);
      header = record.cells.map((h) => h.trim());
      if (header.length === 0 || header.some((h) => h === '')) throw new Error(`${file}: the CSV header has blank columns`);
      continue;
    }
    if ('malformed' in record) malformed.push({ line: record.line, reason: `not valid CSV: ${record.malformed}`, raw: record.raw });
    else {
      rows.push(record.cells);
      lines.push(record.line);
    }
    if (rows.length + malformed.length >= chunkRows) {
      yield chunk();
      rows = [];
      lines = [];
      malformed = [];
    }
  }
  if (!header) throw new Error(`${file}: empty CSV file (a header line is required)`);
  if (rows.length + malformed.length > 0) yield chunk();
}

/** The first record of a CSV file, its header (cells trimmed), or undefined for an empty file. */
export async function readCsvHeader(file: string): Promise<CsvRecord | undefined> {
  const stream = createReadStream(file);
  try {
    for await (const record of csvRecords(createInterface({ input: stream, crlfDelay: Infinity }))) {
      return 'cells' in record ? { ...record, cells: record.cells.map((h) => h.trim()) } : record;
    }
    return undefined;
  } finally {
    stream.destroy();
  }
}
