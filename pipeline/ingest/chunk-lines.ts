/**
 * The raw rows of a chunk job with their 1-based source line numbers, whatever the
 * payload's shape: the lines of a JSON Lines text block (blank ones skipped, as the
 * producer counts them), or the CSV rows with the numbers the producer sent.
 */
import type { CsvChunk, IngestJob, JsonLinesText } from '../../shared/queues.ts';

export interface RawRow {
  line: number;
  /** A JSON line, or a CSV row's cells. */
  raw: string | string[];
}

export function* chunkRows(job: IngestJob): Generator<RawRow> {
  if ('text' in job) yield* jsonLines(job);
  else yield* csvRows(job);
}

function* jsonLines({ text: stored, firstLine }: JsonLinesText): Generator<RawRow> {
  const text = typeof stored === 'string' ? stored : stored.toString('utf8');
  let line = firstLine;
  for (let start = 0; start <= text.length; line++) {
    const lf = text.indexOf('\n', start);
    const end = lf === -1 ? text.length : lf;
    // A CRLF file's lines end in \r; JSON.parse would skip it, but a reject's raw text should not show it.
    const raw = text.slice(start, text.charCodeAt(end - 1) === CR && end > start ? end - 1 : end);
    if (!isBlankLine(raw)) yield { line, raw };
    start = end + 1;
  }
}

function* csvRows({ rows, lines }: CsvChunk): Generator<RawRow> {
  for (let i = 0; i < rows.length; i++) yield { line: lines[i]!, raw: rows[i]! };
}

const CR = 0x0d;

/** Only spaces, tabs and CRs: the same test as the producer's (source-chunks.ts), so both count the same rows. */
export function isBlankLine(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== CR) return false;
  }
  return true;
}
