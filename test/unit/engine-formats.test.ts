/**
 * The bytes the engine reads and writes (pipeline/materialize/load/, write/): RowBinary as it
 * streams in, identifiers looked up from their bytes, Native blocks, and the serving copy's
 * list text, which the API decodes (shared/serving.ts).
 */
import { describe, expect, it } from 'vitest';
import { IdIndex } from '../../pipeline/materialize/load/id-index.ts';
import { readRows } from '../../pipeline/materialize/load/row-binary.ts';
import { REASON } from '../../pipeline/materialize/rank/reasons.ts';
import type { RankedList } from '../../pipeline/materialize/rank/ranker.ts';
import { ListEncoder } from '../../pipeline/materialize/write/list-encoder.ts';
import { bucketMembers } from '../../pipeline/materialize/run/bucket-members.ts';
import { decodeServedList } from '../../shared/serving.ts';
import { nativeBlocksAsTabSeparated } from '../support/native-block-text.ts';

/** RowBinary of rows (UInt32, String): a LEB128 length before each string. */
function rowBinary(rows: [number, string][]): Buffer {
  return Buffer.concat(
    rows.map(([n, s]) => {
      const text = Buffer.from(s, 'utf8');
      const head = Buffer.alloc(4);
      head.writeUInt32LE(n);
      const length: number[] = [];
      let l = text.length;
      while (l >= 0x80) {
        length.push((l & 0x7f) | 0x80);
        l >>>= 7;
      }
      length.push(l);
      return Buffer.concat([head, Buffer.from(length), text]);
    }),
  );
}

describe('reading RowBinary', () => {
  const rows: [number, string][] = [[1, 'a'], [4_000_000_000, 'é€'], [7, 'x'.repeat(300)], [0, '']];

  it.each([1, 2, 3, 5, 64, 10_000])('reads every row whole, whatever chunks of %i bytes the stream cuts it into', async (size) => {
    const bytes = rowBinary(rows);
    async function* chunks() {
      for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
    }
    const read: [number, string][] = [];
    expect(await readRows(chunks(), (row) => void read.push([row.uint32(), row.string()]))).toBe(4);
    expect(read).toEqual(rows);
  });

  it('fails loudly on a stream that ends inside a row', async () => {
    const bytes = rowBinary(rows).subarray(0, 9);
    await expect(readRows((async function* () { yield bytes; })(), (row) => void [row.uint32(), row.string()])).rejects.toThrow('RowBinary stream ended inside a row');
  });
});

describe('identifiers by their bytes', () => {
  const index = new IdIndex(['p_a', 'p_b', 'é-profile', '']);

  it('numbers each identifier by its place, found from its UTF-8 bytes alone', () => {
    const bytes = Buffer.from('xxp_byyé-profile');
    expect(index.lookup(bytes, 2, 5)).toBe(1);
    expect(index.lookup(bytes, 7, bytes.length)).toBe(2);
    expect(index.numberOf('')).toBe(3);
    expect(index.numberOf('p_c')).toBe(-1);
  });

  it('refuses an identifier listed twice', () => {
    expect(() => new IdIndex(['a', 'b', 'a'])).toThrow('identifier a is listed twice');
  });
});

describe('what a bucket writes', () => {
  const ids = ['p_0', 'p_1', 'p_2', 'p_3'];
  const index = new IdIndex(ids);
  const names = { profileBytes: index.bytes, profileOffsets: index.offsets, collectionNames: ['Tabby\tCats'], reasonKindType: "Enum8('social' = 1, 'counterparty' = 2, 'nft' = 3, 'friend_of_friend' = 4, 'follows_you' = 5, 'popular' = 6, 'network' = 7)" };
  const list: RankedList = {
    length: 3,
    candidate: Uint32Array.from([1, 2, 3]),
    score: Float64Array.from([2.5, 1.25, 0]),
    kind: Uint8Array.from([REASON.followed_by, REASON.nft, REASON.popular]),
    subject: Int32Array.from([3, 0, -1]),
    chainId: Uint32Array.from([0, 0, 0]),
    social: Float64Array.from([0, 0, 0]),
    counterparty: Float64Array.from([0, 0, 0]),
    nft: Float64Array.from([0, 1.25, 0]),
    graph: Float64Array.from([2.5, 0, 0]),
  };

  it('writes a list as rows of recommendations in a Native block', () => {
    const encoder = new ListEncoder(names, 7, 2, 100);
    encoder.add(0, list);
    const { block, rows } = encoder.take();
    expect(rows).toBe(3);
    const { columns, text } = nativeBlocksAsTabSeparated(Buffer.from(block));
    expect(columns).toEqual(['snapshot_id', 'bucket', 'profile_id', 'rank', 'candidate_id', 'score', 'reason_kind', 'reason_chain_id', 'reason_subject', 'social_score', 'counterparty_score', 'nft_score', 'fof_score']);
    expect(text.split('\n').filter(Boolean)).toEqual([
      '7\t2\tp_0\t1\tp_1\t2.5\tfriend_of_friend\t0\tp_3\t0\t0\t0\t2.5',
      '7\t2\tp_0\t2\tp_2\t1.25\tnft\t0\tTabby\\tCats\t0\t0\t1.25\t0',
      '7\t2\tp_0\t3\tp_3\t0\tpopular\t0\t\t0\t0\t0\t0',
    ]);
  });

  it("writes the served list as the API reads it, the first SERVING_DEPTH entries with a mark that ClickHouse holds more", () => {
    const encoder = new ListEncoder(names, 7, 2, 2);
    encoder.add(0, list);
    encoder.add('p_new', { ...list, length: 0 });
    const { lists, listEnds } = encoder.take();
    const text = Buffer.from(lists).toString('utf8');
    expect(decodeServedList(text.slice(0, listEnds[0]))).toEqual({ m: 1, e: [['p_1', 4, 0, 'p_3'], ['p_2', 3, 0, 'Tabby\tCats']] });
    expect(decodeServedList(text.slice(listEnds[0], listEnds[1]))).toEqual({ m: 0, e: [] });
  });

  it('puts every profile in exactly one bucket, by a hash of its id that every worker computes alike', () => {
    const many = new IdIndex(Array.from({ length: 1000 }, (_, i) => `p_${i}`));
    const buckets = [0, 1, 2, 3].map((b) => [...bucketMembers(many, b, 4)]);
    expect(buckets.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    for (const bucket of buckets) expect(bucket.length).toBeGreaterThan(150);
    expect([...bucketMembers(new IdIndex(ids), 0, 1)]).toEqual([0, 1, 2, 3]);
  });
});
