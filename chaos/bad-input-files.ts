/**
 * Every kind of bad file the chaos run feeds `soulgraph ingest`, in CSV and JSON Lines, each
 * with what docs/ingestion.md says must happen: which lines are rejected (1-based, the CSV
 * header included), which good rows are stored, and the exit code. Good rows are
 * transactions of a chain id of the file's own, so that each file's rows are counted apart.
 */

export interface BadInputCase {
  name: string;
  fileName: string;
  content: Buffer;
  chainId: number;
  /** Distinct keys of the good rows: what FINAL must hold for this chain id. */
  goodKeys: number;
  /** Lines that must be rejected, ascending. */
  rejectedLines: number[];
  exitCode: number;
}

export const GOOD_ROWS = 2_000;
/** The bad line sits half way, in a chunk that is neither the first nor the last. */
const BAD_AT = 1_000;

const CSV_HEADER = 'chainId,hash,blockNumber,blockTime,from,to,value';

function goodRecord(chainId: number, n: number) {
  return {
    chainId,
    hash: `0x${n.toString(16).padStart(64, '0')}`,
    blockNumber: n,
    blockTime: 1_700_000_000 + n,
    from: `0x${(n % 97).toString(16).padStart(40, 'a')}`,
    to: `0x${(n % 89).toString(16).padStart(40, 'b')}`,
    value: String(n * 1000),
  };
}

const csvLine = (r: ReturnType<typeof goodRecord>) => [r.chainId, r.hash, r.blockNumber, r.blockTime, r.from, r.to, r.value].join(',');
const jsonLine = (r: ReturnType<typeof goodRecord>) => JSON.stringify(r);

/** Bytes no text editor would write: NUL, controls, invalid UTF-8, commas; no quote and no line break, so the line stays one line. */
function binaryBytes(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    let byte = (i * 149 + 7) % 256;
    if (byte === 0x22 || byte === 0x0a || byte === 0x0d) byte = 0xff;
    bytes[i] = byte;
  }
  return bytes;
}

interface Layout {
  /** The good lines, in order, before the bad one is put in. */
  good: string[];
  /** Put in after this many good lines; undefined: none. */
  bad?: Buffer;
  header?: string;
  eol?: string;
  bom?: boolean;
}

/** The file, and the 1-based line the bad line landed on. */
function assemble(layout: Layout): { content: Buffer; badLine: number } {
  const eol = layout.eol ?? '\n';
  const parts: Buffer[] = [];
  if (layout.bom) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  let line = 0;
  let badLine = 0;
  const push = (text: Buffer | string) => {
    parts.push(typeof text === 'string' ? Buffer.from(text) : text, Buffer.from(eol));
    line++;
  };
  if (layout.header) push(layout.header);
  layout.good.forEach((text, i) => {
    if (layout.bad && i === BAD_AT) {
      push(layout.bad);
      badLine = line;
    }
    push(text);
  });
  return { content: Buffer.concat(parts), badLine };
}

export function badInputCases(longLineBytes: number): BadInputCase[] {
  let nextChain = 9_001;
  const cases: BadInputCase[] = [];
  const add = (
    format: 'csv' | 'jsonl',
    name: string,
    make: (good: string[], chainId: number) => Omit<Layout, 'header'> & { exitCode?: number; empty?: boolean },
  ) => {
    const chainId = nextChain++;
    const records = Array.from({ length: GOOD_ROWS }, (_, n) => goodRecord(chainId, n));
    const line = format === 'csv' ? csvLine : jsonLine;
    const layout = make(records.map(line), chainId);
    const { content, badLine } = layout.empty
      ? { content: Buffer.alloc(0), badLine: 0 }
      : assemble({ ...layout, ...(format === 'csv' ? { header: CSV_HEADER } : {}) });
    cases.push({
      name: `${format === 'csv' ? 'CSV' : 'JSONL'} ${name}`,
      fileName: `${name.replace(/\s+/g, '-')}.${format}`,
      content,
      chainId,
      goodKeys: layout.empty ? 0 : GOOD_ROWS,
      rejectedLines: badLine ? [badLine] : [],
      exitCode: layout.exitCode ?? 0,
    });
  };
  const hash = (n: number) => `0x${n.toString(16).padStart(64, 'd')}`;

  add('csv', 'stray quote', (good, chainId) => ({ good, bad: Buffer.from(`${chainId},${hash(1)},5,1700000000,0x${'1'.repeat(40)},0x${'2'.repeat(40)},12"3`) }));
  add('csv', 'unclosed quote', (good, chainId) => ({ good, bad: Buffer.from(`${chainId},"${hash(2)},5,1700000000,0x${'1'.repeat(40)},0x${'2'.repeat(40)},1`) }));
  add('csv', 'binary bytes', (good) => ({ good, bad: binaryBytes(300) }));
  add('csv', 'BOM', (good) => ({ good, bom: true }));
  add('csv', 'CRLF', (good) => ({ good, eol: '\r\n' }));
  // docs/ingestion.md, exit codes: an empty CSV is a usage error, checked before anything is enqueued.
  add('csv', 'empty file', (good) => ({ good, empty: true, exitCode: 2 }));
  add('csv', 'duplicate lines', (good) => ({ good: good.flatMap((text) => [text, text]) }));
  add('csv', 'very long line', (good) => ({ good, bad: Buffer.from('x'.repeat(longLineBytes)) }));

  add('jsonl', 'stray quote', (good, chainId) => ({ good, bad: Buffer.from(`{"chainId":${chainId},"hash":"${hash(3)}"x","blockNumber":5}`) }));
  add('jsonl', 'unclosed quote', (good, chainId) => ({ good, bad: Buffer.from(`{"chainId":${chainId},"blockNumber":5,"hash":"${hash(4)}`) }));
  add('jsonl', 'binary bytes', (good) => ({ good, bad: binaryBytes(300) }));
  add('jsonl', 'BOM', (good) => ({ good, bom: true }));
  add('jsonl', 'CRLF', (good) => ({ good, eol: '\r\n' }));
  add('jsonl', 'empty file', (good) => ({ good, empty: true }));
  add('jsonl', 'duplicate lines', (good) => ({ good: good.flatMap((text) => [text, text]) }));
  // A big integer may have any number of digits (docs/ingestion.md), so the long line is an unknown field's: rejected whatever its length.
  add('jsonl', 'very long line', (good, chainId) => ({
    good,
    bad: Buffer.from(`{"chainId":${chainId},"hash":"${hash(5)}","blockNumber":5,"blockTime":1700000000,"from":"0x${'1'.repeat(40)}","value":"1","memo":"${'x'.repeat(longLineBytes)}"}`),
  }));
  return cases;
}
