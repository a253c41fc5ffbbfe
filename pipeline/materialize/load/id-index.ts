/**
 * Identifiers (profile ids, addresses) and their dense numbers 0..n-1, looked up straight
 * from the bytes a RowBinary row holds (row-binary.ts): no string is made per lookup, which is
 * what reading 50 M follows of a million profiles costs otherwise. Open addressing over one
 * buffer of every identifier's UTF-8 bytes.
 */

export class IdIndex {
  readonly ids: readonly string[];
  /** Every identifier's UTF-8 bytes, back to back, the i-th at [offsets[i], offsets[i + 1]). */
  readonly bytes: Buffer;
  readonly offsets: Uint32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;

  /** `ids` must be distinct; each gets its index as its number. */
  constructor(ids: readonly string[]) {
    this.ids = ids;
    const encoded = ids.map((id) => Buffer.from(id, 'utf8'));
    this.offsets = new Uint32Array(ids.length + 1);
    encoded.forEach((b, i) => (this.offsets[i + 1] = this.offsets[i]! + b.length));
    this.bytes = Buffer.concat(encoded);
    let size = 16;
    while (size < ids.length * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    for (let i = 0; i < ids.length; i++) {
      const start = this.offsets[i]!;
      const end = this.offsets[i + 1]!;
      let slot = hashOf(this.bytes, start, end) & this.mask;
      while (this.slots[slot] !== 0) {
        if (this.equals(this.slots[slot]! - 1, this.bytes, start, end)) throw new Error(`identifier ${ids[i]} is listed twice`);
        slot = (slot + 1) & this.mask;
      }
      this.slots[slot] = i + 1;
    }
  }

  get size(): number {
    return this.ids.length;
  }

  /** The number of the identifier whose UTF-8 bytes are buffer[start, end), or -1. */
  lookup(buffer: Uint8Array, start: number, end: number): number {
    let slot = hashOf(buffer, start, end) & this.mask;
    for (;;) {
      const held = this.slots[slot]!;
      if (held === 0) return -1;
      if (this.equals(held - 1, buffer, start, end)) return held - 1;
      slot = (slot + 1) & this.mask;
    }
  }

  /** The number of an identifier given as a string, or -1. */
  numberOf(id: string): number {
    const bytes = Buffer.from(id, 'utf8');
    return this.lookup(bytes, 0, bytes.length);
  }

  private equals(i: number, buffer: Uint8Array, start: number, end: number): boolean {
    const from = this.offsets[i]!;
    if (this.offsets[i + 1]! - from !== end - start) return false;
    for (let k = 0; k < end - start; k++) if (this.bytes[from + k] !== buffer[start + k]) return false;
    return true;
  }
}

/** 32-bit FNV-1a of bytes. */
function hashOf(buffer: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buffer[i]!, 0x01000193);
  return h >>> 0;
}
