/**
 * Addresses and transaction hashes that look random but can never collide.
 *
 * A 32-bit hash would collide after ~65k ids (birthday bound), so the first 64 bits of
 * every id come from a Feistel network over (domain, index): a bijection, hence distinct
 * for every distinct pair. The remaining bytes are filler hashed from those 64 bits.
 */
import { hashWords, mix32, type Seed } from './random.ts';

/** Id domains. Transaction-like domains carry a per-unit sequence number in their low 20 bits. */
export const idDomain = {
  profileAddress: 1 << 20,
  exchange: 2 << 20,
  bridge: 3 << 20,
  contract: 4 << 20,
  token: 5 << 20,
  nftCollection: 6 << 20,
  sbtContract: 7 << 20,
  transaction: 16 << 20,
  tokenTransfer: 17 << 20,
  nftTransfer: 18 << 20,
} as const;

/** Largest per-unit sequence number a transaction-like domain can hold. */
export const maxSequence = (1 << 20) - 1;

const BYTE_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function wordHex(word: number): string {
  return BYTE_HEX[word >>> 24]! + BYTE_HEX[(word >>> 16) & 0xff]! + BYTE_HEX[(word >>> 8) & 0xff]! + BYTE_HEX[word & 0xff]!;
}

export class HexIds {
  private readonly roundKeys: readonly number[];
  private readonly fillerKey: number;

  constructor(seed: Seed) {
    this.roundKeys = [1, 2, 3, 4].map((round) => hashWords(seed.lo, seed.hi, 0xfe157e1, round));
    this.fillerKey = hashWords(seed.lo, seed.hi, 0xf111e4);
  }

  /** A 20-byte address, lowercase hex. */
  address(domain: number, index: number): string {
    return this.hex(domain, index, 5);
  }

  /** A 32-byte transaction hash, lowercase hex. */
  hash(domain: number, sequence: number, index: number): string {
    return this.hex(domain | sequence, index, 8);
  }

  /** A bijection on 32-bit integers, for short ids such as profile ids. */
  permute32(value: number): number {
    return mix32(mix32(value ^ this.roundKeys[0]!) ^ this.roundKeys[1]!);
  }

  private hex(domain: number, index: number, words: number): string {
    let left = domain >>> 0;
    let right = index >>> 0;
    for (const key of this.roundKeys) {
      const next = (left ^ mix32(right ^ key)) >>> 0;
      left = right;
      right = next;
    }
    let text = '0x' + wordHex(left) + wordHex(right);
    for (let w = 2; w < words; w++) text += wordHex(hashWords(left, right, this.fillerKey, w));
    return text;
  }
}
