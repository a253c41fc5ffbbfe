/**
 * A canonical transactions line (as JSON.stringify writes it), read from the chunk's bytes
 * and written straight into the INSERT's body as its TabSeparated row: no string, match or
 * row object per line, which with the generic encoder cost the workers about twice as much
 * as this one pass over the bytes.
 *
 * It takes exactly the lines of the grammar in test/support/canonical-transaction-line.ts
 * (same range checks) and writes what `tabSeparated` writes for the row transactionRecord
 * makes of them, with `ingested_at` last; test/unit/transaction-fast-path.test.ts holds it
 * to both. Anything else is declined and goes the usual way (JSON.parse, checks, schema,
 * reject reasons).
 */
import type { InsertBody } from '../clickhouse/insert-body.ts';

/** The row's columns in the order written: the schema row's keys, then ingested_at. */
export const TRANSACTION_TSV_COLUMNS = ['chain_id', 'hash', 'block_number', 'block_time', 'from_address', 'to_address', 'value', 'ingested_at'] as const;

const UINT32_MAX = 4_294_967_295;
const TAB = 0x09;
const LF = 0x0a;
const QUOTE = 0x22;
const ZERO = 0x30;
const NINE = 0x39;

const bytesOf = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const CHAIN_ID = bytesOf('{"chainId":');
const HASH = bytesOf(',"hash":"0x');
const BLOCK_NUMBER = bytesOf('","blockNumber":');
const BLOCK_TIME = bytesOf(',"blockTime":');
const FROM = bytesOf(',"from":"0x');
const TO = bytesOf('","to":');
const TO_ADDRESS = bytesOf('"0x');
const NULL = bytesOf('null');
const EMPTY = bytesOf('""');
const VALUE_AFTER_TO = bytesOf(',"value":"');
const VALUE = bytesOf('","value":"');
const END = bytesOf('"}');

/** 1 for the bytes of [0-9a-fA-F]. */
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

/**
 * Writes the row of the line in bytes [start, end) of `src` to `body` and returns true, or
 * writes nothing and returns false when the line is not canonical. `ingestedAt`: the 10
 * ASCII digits of the ingested_at column.
 */
export function writeTransactionTsv(src: Uint8Array, start: number, end: number, body: InsertBody, ingestedAt: Uint8Array): boolean {
  // A TabSeparated row is never longer than its canonical line plus the padding of two times.
  const out = body.reserve(end - start + 32);
  const line = new Line(src, start, end, out, body.length);
  if (!line.literal(CHAIN_ID)) return false;
  if (!isIn(line.integer(10), 1, UINT32_MAX) || !line.tab() || !line.literal(HASH) || !line.hex(64) || !line.tab()) return false;
  if (!line.literal(BLOCK_NUMBER) || !isIn(line.integer(16), 0, Number.MAX_SAFE_INTEGER) || !line.tab()) return false;
  if (!line.literal(BLOCK_TIME) || !isIn(line.dateTime(), 0, UINT32_MAX) || !line.tab()) return false;
  if (!line.literal(FROM) || !line.hex(40) || !line.tab()) return false;
  if (line.literal(TO)) {
    // "to": an address, null or "" (both written as the empty address).
    if (line.literal(TO_ADDRESS)) {
      if (!line.hex(40) || !line.skip(QUOTE)) return false;
    } else if (!line.literal(NULL) && !line.literal(EMPTY)) return false;
    if (!line.tab() || !line.literal(VALUE_AFTER_TO)) return false;
  } else if (!line.tab() || !line.literal(VALUE)) return false;
  if (line.decimal() < 0 || !line.literal(END) || !line.atEnd()) return false;
  line.tab();
  line.copy(ingestedAt);
  line.write(LF);
  body.commit(line.out);
  return true;
}

/** A cursor over the line's bytes and the row being written; each step says whether it matched. */
class Line {
  constructor(
    private readonly src: Uint8Array,
    private at: number,
    private readonly end: number,
    private readonly dst: Uint8Array,
    public out: number,
  ) {}

  /** Skips `bytes` if the line continues with them. */
  literal(bytes: Uint8Array): boolean {
    const { src, at } = this;
    if (at + bytes.length > this.end) return false;
    for (let i = 0; i < bytes.length; i++) if (src[at + i] !== bytes[i]) return false;
    this.at = at + bytes.length;
    return true;
  }

  skip(byte: number): boolean {
    if (this.at >= this.end || this.src[this.at] !== byte) return false;
    this.at++;
    return true;
  }

  /**
   * `0|[1-9][0-9]{0,maxDigits-1}`, copied; returns its value, or -1 for no digits. More
   * digits than that are left unread, so the next literal fails (as the pattern would).
   */
  integer(maxDigits: number): number {
    const { src, end } = this;
    const first = this.at;
    if (first >= end || !isDigit(src[first]!)) return -1;
    const last = src[first] === ZERO ? first + 1 : Math.min(end, first + maxDigits);
    let value = 0;
    let at = first;
    // The digit's value first: value * 10 + c would pass 2^53 and round before the subtraction.
    while (at < last && isDigit(src[at]!)) value = value * 10 + (src[at++]! - ZERO);
    this.at = at;
    this.copyFrom(first);
    return value;
  }

  /** An integer of up to 10 digits, written with exactly 10 as ClickHouse 18.16 requires of a DateTime. */
  dateTime(): number {
    const first = this.at;
    const out = this.out;
    const value = this.integer(10);
    if (value < 0) return -1;
    const digits = this.at - first;
    // Move the digits right and put zeros before them.
    this.dst.copyWithin(out + 10 - digits, out, out + digits);
    this.dst.fill(ZERO, out, out + 10 - digits);
    this.out = out + 10;
    return value;
  }

  /** `0|[1-9][0-9]*`, copied; returns its length, or -1. */
  decimal(): number {
    const { src, end } = this;
    const first = this.at;
    if (first >= end || !isDigit(src[first]!)) return -1;
    let at = first + 1;
    if (src[first] !== ZERO) while (at < end && isDigit(src[at]!)) at++;
    this.at = at;
    this.copyFrom(first);
    return at - first;
  }

  /** "0x" (already matched) and then `digits` hex digits, written as lowercase "0x..." */
  hex(digits: number): boolean {
    // Locals, not fields, in the loops: a field written per byte stays in memory.
    const { src, dst, at } = this;
    if (at + digits > this.end) return false;
    let out = this.out;
    dst[out++] = ZERO;
    dst[out++] = 0x78; // x
    for (let i = at; i < at + digits; i++) {
      const c = src[i]!;
      if (HEX[c] === 0) return false;
      // Sets the lowercase bit: A-F become a-f; digits and a-f already have it.
      dst[out++] = c | 0x20;
    }
    this.at = at + digits;
    this.out = out;
    return true;
  }

  atEnd(): boolean {
    return this.at === this.end;
  }

  tab(): boolean {
    this.dst[this.out++] = TAB;
    return true;
  }

  write(byte: number): void {
    this.dst[this.out++] = byte;
  }

  copy(bytes: Uint8Array): void {
    this.dst.set(bytes, this.out);
    this.out += bytes.length;
  }

  private copyFrom(first: number): void {
    const { src, dst, at } = this;
    let out = this.out;
    for (let i = first; i < at; i++) dst[out++] = src[i]!;
    this.out = out;
  }
}

/** Whether an integer read (-1 for none) is within [min, max]. */
function isIn(value: number, min: number, max: number): boolean {
  return value >= min && value <= max;
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}
