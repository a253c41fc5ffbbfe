/**
 * A canonical JSON Lines chunk of a kind with a TabSeparated line writer (transactions),
 * validated and encoded in one pass over its bytes into the body of its INSERT: a canonical
 * line is written straight from the bytes; any other line is decoded and goes through the
 * usual checks (rowValidator), its row encoded by `tabSeparated`, or its reject recorded
 * with its line number and reason. Rows keep their line order, as in the generic path.
 */
import { InsertBody } from '../../shared/clickhouse/insert-body.ts';
import { tabSeparated } from '../../shared/clickhouse/tab-separated.ts';
import type { JsonLinesText } from '../../shared/queues.ts';
import type { TsvLine } from '../../shared/records/record-kind.ts';
import { isBlankLine } from './chunk-lines.ts';
import { rowValidator, type Reject } from './validate-chunk.ts';

export interface TabSeparatedChunk {
  body: Buffer;
  rows: number;
}

const LF = 0x0a;
const CR = 0x0d;

/** `ingestedAt`: unix seconds (10 digits until 2286). `dateTimeColumns`: the table's, for the rows not written by `tsvLine`. */
export function tabSeparatedChunk(
  job: JsonLinesText,
  tsvLine: TsvLine,
  ingestedAt: number,
  dateTimeColumns: ReadonlySet<string>,
  rejects: Reject[],
): TabSeparatedChunk {
  const bytes = typeof job.text === 'string' ? Buffer.from(job.text) : job.text;
  const stamp = Buffer.from(String(ingestedAt).padStart(10, '0'));
  const validRow = rowValidator(job);
  // Rows are shorter than their canonical lines: the chunk's size is room enough but for odd lines.
  const body = new InsertBody(bytes.length + 1024);
  let rows = 0;
  let line = job.firstLine;
  for (let start = 0; start <= bytes.length; line++) {
    const lf = bytes.indexOf(LF, start);
    const next = lf === -1 ? bytes.length : lf;
    // A CRLF file's lines end in \r: not part of the record (JSON.parse would skip it).
    const end = next > start && bytes[next - 1] === CR ? next - 1 : next;
    if (tsvLine.write(bytes, start, end, body, stamp)) rows++;
    else if (writeCheckedRow(bytes.toString('utf8', start, end), line)) rows++;
    start = next + 1;
  }
  return { body: body.bytes(), rows };

  /** A line the writer declined: blank (skipped), valid in another spelling (written), or rejected. */
  function writeCheckedRow(raw: string, line: number): boolean {
    if (isBlankLine(raw)) return false;
    const row = validRow(raw, line, rejects);
    if (!row) return false;
    row.ingested_at = ingestedAt;
    body.writeText(tabSeparated([row], tsvLine.columns, dateTimeColumns));
    return true;
  }
}
