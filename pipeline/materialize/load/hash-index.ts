/**
 * Identifiers by ClickHouse's cityHash64 of them, to dense numbers: the loads ask ClickHouse
 * for the hash of each profile id, handle or address (a UInt64, two words in RowBinary) rather
 * than the text, so that a row of 50 M follows is 20 bytes and its lookup two integer
 * comparisons. Built from the hashes read with the identifiers themselves; two identifiers
 * with one hash (never seen: 2^-64 a pair) stop the load rather than merge two profiles.
 */

export class HashIndex {
  private readonly lo: Uint32Array;
  private readonly hi: Uint32Array;
  /** Number + 1 at each slot, 0 where empty. */
  private readonly values: Int32Array;
  private readonly mask: number;

  /** `lo[i]`, `hi[i]`: the hash of the identifier numbered `numbers[i]` (its index when absent). */
  constructor(lo: Uint32Array, hi: Uint32Array, numbers?: Uint32Array, onCollision: 'fail' | 'keep-first' = 'fail') {
    let size = 16;
    while (size < lo.length * 2) size *= 2;
    this.lo = new Uint32Array(size);
    this.hi = new Uint32Array(size);
    this.values = new Int32Array(size);
    this.mask = size - 1;
    for (let i = 0; i < lo.length; i++) {
      let slot = mixed(lo[i]!, hi[i]!) & this.mask;
      let taken = false;
      while (this.values[slot] !== 0) {
        if (this.lo[slot] === lo[i] && this.hi[slot] === hi[i]) {
          if (onCollision === 'fail') throw new Error(`two identifiers have the cityHash64 ${hi[i]!.toString(16)}${lo[i]!.toString(16).padStart(8, '0')}: the load cannot tell them apart`);
          taken = true;
          break;
        }
        slot = (slot + 1) & this.mask;
      }
      if (taken) continue;
      this.lo[slot] = lo[i]!;
      this.hi[slot] = hi[i]!;
      this.values[slot] = (numbers ? numbers[i]! : i) + 1;
    }
  }

  /** The number of the identifier with this hash, or -1. */
  lookup(lo: number, hi: number): number {
    let slot = mixed(lo, hi) & this.mask;
    for (;;) {
      const held = this.values[slot]!;
      if (held === 0) return -1;
      if (this.lo[slot] === lo && this.hi[slot] === hi) return held - 1;
      slot = (slot + 1) & this.mask;
    }
  }
}

/** The hash is uniform already; folding the words keeps both in the slot. */
function mixed(lo: number, hi: number): number {
  return (lo ^ Math.imul(hi, 0x9e3779b1)) >>> 0;
}
