/**
 * A canonical transactions chunk encoded in one pass over its bytes must insert exactly
 * what the generic path (validRows, then tabSeparated) inserts, and reject the same lines
 * with the same numbers and reasons.
 */
import { describe, expect, it } from 'vitest';
import { tabSeparated } from '../../shared/clickhouse/tab-separated.ts';
import type { JsonLinesText } from '../../shared/queues.ts';
import { transactionsKind } from '../../shared/records/chain-activity.ts';
import { tabSeparatedChunk } from '../../pipeline/ingest/tab-separated-chunk.ts';
import { validateChunk, type Reject } from '../../pipeline/ingest/validate-chunk.ts';
import { MAINNET_TRANSACTION } from '../fixtures/transactions.ts';

const NOW = 1_763_856_000;
const DATE_TIMES = new Set(['block_time', 'ingested_at']);
const tsvLine = transactionsKind.tsvLine!;
const tx = (n: number, overrides: Record<string, unknown> = {}) => ({ ...MAINNET_TRANSACTION, hash: `0x${n.toString(16).padStart(64, 'A')}`, blockNumber: n, ...overrides });

function chunk(text: string | Buffer, firstLine = 1): JsonLinesText {
  return { kind: 'transactions', source: 'test', format: 'canonical', text, firstLine };
}

function encoded(job: JsonLinesText) {
  const rejects: Reject[] = [];
  const { body, rows } = tabSeparatedChunk(job, tsvLine, NOW, DATE_TIMES, rejects);
  return { body: body.toString('utf8'), rows, rejects };
}

/** What the generic path makes of the same chunk: its rows, stamped and encoded, and its rejects. */
function generic(job: JsonLinesText) {
  const { accepted, rejects } = validateChunk(job);
  const rows = accepted.map(({ row }) => ({ ...row, ingested_at: NOW }));
  return { body: rows.length > 0 ? tabSeparated(rows, tsvLine.columns, DATE_TIMES) : '', rows: rows.length, rejects };
}

const MIXED = [
  JSON.stringify(tx(1)), // canonical
  '', // blank lines count
  JSON.stringify(tx(3), null, 1).replace(/\n/g, ''), // valid, spaced: the checks' way
  `${JSON.stringify(tx(4))}\r`, // CRLF
  '{"chainId": 1, "hash": ', // broken JSON
  JSON.stringify(tx(6, { from: '0x12345' })), // bad address
  JSON.stringify(tx(7, { blockTime: '2017-03-06T04:38:27Z' })), // valid, ISO time: the schema's way
  '   ',
  JSON.stringify(tx(9, { to: null, note: 'Zoë 🚀' })), // unknown field, non-ASCII
  JSON.stringify(tx(10, { to: null })), // canonical without to
].join('\n');

describe('tabSeparatedChunk', () => {
  it('writes a canonical line straight as its row, ingested_at last', () => {
    expect(encoded(chunk(JSON.stringify(MAINNET_TRANSACTION)))).toEqual({
      body: `1\t${MAINNET_TRANSACTION.hash.toLowerCase()}\t3300400\t1488775107\t${MAINNET_TRANSACTION.from}\t${MAINNET_TRANSACTION.to}\t1000000000000000000\t${NOW}\n`,
      rows: 1,
      rejects: [],
    });
  });

  it('inserts what the generic path inserts, in line order, and rejects the same lines with the same reasons', () => {
    const ours = encoded(chunk(Buffer.from(MIXED), 41));
    expect(ours).toEqual(generic(chunk(MIXED, 41)));
    expect(ours.rows).toBe(5);
    expect(ours.rejects.map((r) => r.line)).toEqual([45, 46, 49]);
  });

  it('rejects line 3 with its reason and ingests the rest', () => {
    const { rows, rejects } = encoded(chunk([tx(1), tx(2), tx(3, { value: 12.5 }), tx(4)].map((t) => JSON.stringify(t)).join('\n')));
    expect(rows).toBe(3);
    expect(rejects).toEqual([{ line: 3, reason: expect.stringMatching(/^value: must be/), raw: JSON.stringify(tx(3, { value: 12.5 })) }]);
  });

  it('reads an inline text as it reads the stored bytes', () => {
    expect(encoded(chunk(MIXED))).toEqual(encoded(chunk(Buffer.from(MIXED))));
  });

  it('rejects a line of bytes that are not UTF-8 as the generic path does', () => {
    const bytes = Buffer.concat([Buffer.from(`${JSON.stringify(tx(1))}\n{"chainId":`), Buffer.from([0xff, 0xfe]), Buffer.from('}\n\n')]);
    const ours = encoded(chunk(bytes));
    expect(ours).toEqual(generic(chunk(bytes)));
    expect(ours.rejects.map((r) => r.line)).toEqual([2]);
  });

  it('writes nothing for a chunk of blank lines', () => {
    expect(encoded(chunk('\n  \r\n'))).toEqual({ body: '', rows: 0, rejects: [] });
  });
});
