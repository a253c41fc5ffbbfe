/**
 * Reads ClickHouse's RowBinary format as it streams in: each row its columns back to back,
 * fixed-width numbers little-endian, a String as a LEB128 length and its bytes, an Array as a
 * LEB128 count and its items. No JSON and no string per cell: a loader reads numbers as they
 * are and resolves identifiers from their bytes (id-index.ts), which is what lets a run read
 * millions of follows in seconds.
 *
 * `rows` hands a RowCursor to the reader for every complete row; a row cut by the end of a
 * chunk is read again once the next chunk has arrived, so the reader never sees half a row
 * (it must not keep state across a row it has not finished).
 */

/** Thrown inside a row that runs past the bytes received so far. */
class Incomplete extends Error {}
const INCOMPLETE = new Incomplete();

export class RowCursor {
  buffer: Buffer = Buffer.alloc(0);
  at = 0;

  private need(bytes: number): void {
    if (this.at + bytes > this.buffer.length) throw INCOMPLETE;
  }

  uint8(): number {
    this.need(1);
    return this.buffer[this.at++]!;
  }

  uint16(): number {
    this.need(2);
    const v = this.buffer.readUInt16LE(this.at);
    this.at += 2;
    return v;
  }

  uint32(): number {
    this.need(4);
    const v = this.buffer.readUInt32LE(this.at);
    this.at += 4;
    return v;
  }

  float64(): number {
    this.need(8);
    const v = this.buffer.readDoubleLE(this.at);
    this.at += 8;
    return v;
  }

  /** A LEB128 unsigned integer (String lengths, Array sizes). */
  varUInt(): number {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = this.uint8();
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
      shift += 7;
    }
  }

  /** A String's bytes, as [start, end) in `buffer` (valid until the next row). */
  stringBytes(): [start: number, end: number] {
    const length = this.varUInt();
    this.need(length);
    const start = this.at;
    this.at += length;
    return [start, this.at];
  }

  string(): string {
    const [start, end] = this.stringBytes();
    return this.buffer.toString('utf8', start, end);
  }

  strings(): string[] {
    const count = this.varUInt();
    const values: string[] = [];
    for (let i = 0; i < count; i++) values.push(this.string());
    return values;
  }
}

/** Calls `row` once per complete row of the RowBinary `chunks`; returns the rows read. */
export async function readRows(chunks: AsyncIterable<Buffer | Uint8Array>, row: (cursor: RowCursor) => void): Promise<number> {
  const cursor = new RowCursor();
  let rows = 0;
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of chunks) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    cursor.buffer = rest.length > 0 ? Buffer.concat([rest, bytes]) : bytes;
    cursor.at = 0;
    for (;;) {
      const start = cursor.at;
      if (start === cursor.buffer.length) break;
      try {
        row(cursor);
        rows++;
      } catch (error) {
        if (error !== INCOMPLETE) throw error;
        cursor.at = start;
        break;
      }
    }
    // Copied: the stream may reuse its chunk's memory.
    rest = Buffer.from(cursor.buffer.subarray(cursor.at));
  }
  if (rest.length > 0) throw new Error(`RowBinary stream ended inside a row (${rest.length} bytes left)`);
  return rows;
}
