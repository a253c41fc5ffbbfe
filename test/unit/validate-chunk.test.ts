import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { ethereumEtlKinds, ethereumEtlMapper } from '../../pipeline/ingest/ethereum-etl.ts';
import { validateChunk } from '../../pipeline/ingest/validate-chunk.ts';
import { ingestJobSchema, type IngestJob } from '../../shared/queues.ts';
import { MAINNET_TRANSACTION } from '../fixtures/transactions.ts';

const RAPHTORY_TRANSACTIONS = '/work/shared/data/raphtory-eth/transactions_03300000_03399999_small.csv';
const ETL_TOKEN_TRANSFERS =
  '/work/shared/data/ethereum-etl-fixtures/tests/resources/test_export_token_transfers_job/block_with_transfers/expected_token_transfers.csv';

/** First `count` lines of a CSV without quoted fields: header and rows, rows numbered from line 2. */
function readSimpleCsv(file: string, count = Infinity): { header: string[]; rows: string[][]; lines: number[] } {
  const [head, ...rest] = readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l !== '').slice(0, count);
  const rows = rest.map((l) => l.split(','));
  return { header: head!.split(','), rows, lines: rows.map((_, i) => i + 2) };
}

interface TestChunk {
  kind: IngestJob['kind'];
  format?: IngestJob['format'];
  chainId?: number;
  header?: string[];
  /** JSON lines (sent as one text block, each on its line) or CSV cells (with a header). */
  rows: string[] | string[][];
  lines: number[];
}

/** A job that also passes the queue's own payload schema (so the test uses real job shapes). */
function job({ rows, lines, ...fields }: TestChunk): IngestJob {
  const body = fields.header ? { rows, lines } : jsonLinesText(rows as string[], lines);
  return ingestJobSchema.parse({ source: 'test-input', format: 'canonical', ...fields, ...body }) as IngestJob;
}

/** The JSON Lines text block with each row on its own line and blank lines in the gaps. */
function jsonLinesText(rows: string[], lines: number[]): { text: string; firstLine: number } {
  const firstLine = lines[0] ?? 1;
  const text: string[] = [];
  rows.forEach((row, i) => {
    while (firstLine + text.length < lines[i]!) text.push('');
    text.push(row);
  });
  return { text: text.join('\n'), firstLine };
}

const TX = MAINNET_TRANSACTION;
const TX_ROW = {
  chain_id: 1,
  hash: '0xe6e3adc26100e603097ad9e0dfe9b097f3a8be17c04d541805220a5f30b304ef',
  block_number: 3300400,
  block_time: 1488775107,
  from_address: '0x593c97a298bacbdfcf1a820772bdb2fd564a7a1b',
  to_address: '0x08f054e89b7f2b921058dcde4e1ce746934394a6',
  value: '1000000000000000000',
};

describe('validateChunk: JSON lines', () => {
  const { blockNumber: _omitted, ...withoutBlockNumber } = TX;
  const result = validateChunk(
    job({
      kind: 'transactions',
      rows: [
        JSON.stringify(TX),
        '{"hash": "0xabc", ',
        JSON.stringify([TX]),
        JSON.stringify({ ...TX, from: '0x1234' }),
        JSON.stringify(withoutBlockNumber),
        JSON.stringify({ ...TX, value: '7' }),
      ],
      lines: [1, 2, 3, 4, 6, 9],
    }),
  );

  it('accepts the valid lines with their own line numbers, as stored rows', () => {
    expect(result.accepted).toEqual([
      { line: 1, row: TX_ROW },
      { line: 9, row: { ...TX_ROW, value: '7' } },
    ]);
  });

  it('rejects each bad line once, with its own line number', () => {
    expect(result.rejects.map((r) => r.line)).toEqual([2, 3, 4, 6]);
  });

  it('rejects a malformed JSON line as not valid JSON', () => {
    expect(result.rejects[0]!.reason).toMatch(/^not valid JSON: /);
    expect(result.rejects[0]!.raw).toBe('{"hash": "0xabc", ');
  });

  it('rejects a JSON array line as not one object', () => {
    expect(result.rejects[1]!.reason).toBe('a line must be one JSON object');
  });

  it('names the field with a bad address', () => {
    expect(result.rejects[2]!.reason).toBe('from: must be a 0x-prefixed 20-byte hex address');
  });

  it('names a missing field as missing', () => {
    expect(result.rejects[3]!.reason).toBe('blockNumber: missing');
  });

  it.each([['null'], ['42'], ['"text"'], ['true']])('rejects the non-object line %s', (line) => {
    const { rejects } = validateChunk(job({ kind: 'transactions', rows: [line], lines: [5] }));
    expect(rejects).toEqual([{ line: 5, reason: 'a line must be one JSON object', raw: line }]);
  });

  it('lists every problem of a line, separated by semicolons', () => {
    const { hash: _h, ...noHash } = TX;
    const { rejects } = validateChunk(
      job({ kind: 'transactions', rows: [JSON.stringify({ ...noHash, to: 'nobody' })], lines: [1] }),
    );
    expect(rejects[0]!.reason).toBe('hash: missing; to: must be a 0x-prefixed 20-byte hex address');
  });

  it('keeps a large JSON integer exact instead of rejecting or rounding it', () => {
    const line = JSON.stringify({ ...TX, value: 'VALUE' }).replace('"VALUE"', '1000000000000000001');
    const { accepted, rejects } = validateChunk(job({ kind: 'transactions', rows: [line], lines: [1] }));
    expect(rejects).toEqual([]);
    expect(accepted[0]!.row.value).toBe('1000000000000000001');
  });

  it('does not touch digits inside a JSON string', () => {
    const line = JSON.stringify({ profileId: 'p_1', name: 'x: 12345678901234567890, y', updatedAt: 1714564800 });
    const { accepted } = validateChunk(job({ kind: 'profiles', rows: [line], lines: [1] }));
    expect(accepted[0]!.row.name).toBe('x: 12345678901234567890, y');
  });

  it('leaves a float with a long fraction or exponent as a number (the line still parses)', () => {
    const line = JSON.stringify(TX).replace(/}$/, ', "ratio": 0.12345678901234567890, "huge": -1e+1234567890123456789}');
    const { accepted, rejects } = validateChunk(job({ kind: 'transactions', rows: [line], lines: [1] }));
    // Parsed, not "not valid JSON": the only complaint is the two fields transactions do not have.
    expect(accepted).toEqual([]);
    expect(rejects.map((r) => r.reason)).toEqual(['unknown field ratio, huge']);
  });

  it('rejects a misspelled field instead of silently dropping it', () => {
    const line = JSON.stringify({ ...TX, block_number: TX.blockNumber, blockNumber: undefined });
    const { rejects } = validateChunk(job({ kind: 'transactions', rows: [line], lines: [7] }));
    expect(rejects.map((r) => `${r.line}: ${r.reason}`)).toEqual(['7: blockNumber: missing; unknown field block_number']);
  });

  it('returns nothing for an empty chunk', () => {
    expect(validateChunk(job({ kind: 'transactions', rows: [], lines: [] }))).toEqual({ accepted: [], rejects: [] });
  });
});

describe('validateChunk: CSV rows', () => {
  const header = ['chainId', 'hash', 'blockNumber', 'blockTime', 'from', 'to', 'value'];
  const cells = (tx: Record<string, unknown>) => header.map((h) => String(tx[h] ?? ''));

  it('accepts a row, reading numbers from their text', () => {
    const { accepted, rejects } = validateChunk(job({ kind: 'transactions', header, rows: [cells(TX)], lines: [2] }));
    expect(rejects).toEqual([]);
    expect(accepted).toEqual([{ line: 2, row: TX_ROW }]);
  });

  it('rejects a row with too few or too many cells, naming the expected count', () => {
    const { accepted, rejects } = validateChunk(
      job({ kind: 'transactions', header, rows: [cells(TX).slice(0, 6), [...cells(TX), 'extra']], lines: [3, 4] }),
    );
    expect(accepted).toEqual([]);
    expect(rejects.map((r) => [r.line, r.reason])).toEqual([
      [3, 'expected 7 columns as in the header, found 6'],
      [4, 'expected 7 columns as in the header, found 8'],
    ]);
    expect(JSON.parse(rejects[0]!.raw)).toEqual(cells(TX).slice(0, 6));
  });

  it('rejects a blank blockNumber as missing instead of reading it as 0', () => {
    const { accepted, rejects } = validateChunk(
      job({ kind: 'transactions', header, rows: [cells({ ...TX, blockNumber: '' })], lines: [7] }),
    );
    expect(accepted).toEqual([]);
    expect(rejects.map((r) => [r.line, r.reason])).toEqual([[7, 'blockNumber: missing']]);
  });

  it('stores a blank optional cell (to) as empty, not as an error', () => {
    const { accepted } = validateChunk(job({ kind: 'transactions', header, rows: [cells({ ...TX, to: '' })], lines: [2] }));
    expect(accepted[0]!.row.to_address).toBe('');
  });
});

describe('validateChunk: ethereum-etl format', () => {
  it('maps the first 49 raphtory transactions (ethereum-etl columns) and stores the first exactly', () => {
    const csv = readSimpleCsv(RAPHTORY_TRANSACTIONS, 50);
    expect(csv.header).toEqual([
      'hash', 'nonce', 'block_hash', 'block_number', 'transaction_index', 'from_address', 'to_address', 'value',
      'gas', 'gas_price', 'input', 'block_timestamp', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'transaction_type',
    ]);
    const { accepted, rejects } = validateChunk(job({ kind: 'transactions', format: 'ethereum-etl', chainId: 1, ...csv }));
    expect(rejects).toEqual([]);
    expect(accepted).toHaveLength(49);
    expect(accepted[0]).toEqual({
      line: 2,
      row: {
        chain_id: 1,
        hash: '0x5b4d26a7cda9a2547fc122688f656f3c5d152c876acf117b09f892f8e0e784a4',
        block_number: 3300400,
        block_time: 1488775107,
        from_address: '0x942c4bc02dc8986215adc1ba2d27723fd4a98a8b',
        to_address: '0xabbb6bebfa05aa13e908eaa492bd7a8343760477',
        value: '804264913889669500',
      },
    });
    expect(accepted[1]!.row.value).toBe('1000000000000000000');
  });

  it('lowercases a mixed-case hash and address from an ethereum-etl row', () => {
    const csv = readSimpleCsv(RAPHTORY_TRANSACTIONS, 2);
    const row = csv.rows[0]!.map((cell, i) => (i === 0 || i === 5 ? cell.toUpperCase().replace('0X', '0x') : cell));
    const { accepted } = validateChunk(job({ kind: 'transactions', format: 'ethereum-etl', ...csv, rows: [row] }));
    expect(accepted[0]!.row.hash).toBe('0x5b4d26a7cda9a2547fc122688f656f3c5d152c876acf117b09f892f8e0e784a4');
    expect(accepted[0]!.row.from_address).toBe('0x942c4bc02dc8986215adc1ba2d27723fd4a98a8b');
  });

  it('maps ethereum-etl token transfers and uses job.chainId', () => {
    const csv = readSimpleCsv(ETL_TOKEN_TRANSFERS);
    const { accepted, rejects } = validateChunk(
      job({ kind: 'token-transfers', format: 'ethereum-etl', chainId: 137, ...csv }),
    );
    expect(rejects).toEqual([]);
    expect(accepted).toEqual([
      {
        line: 2,
        row: {
          chain_id: 137,
          contract: '0xf4eced2f682ce333f96f2d8966c613ded8fc95dd',
          from_address: '0x1b63142628311395ceafeea5667e7c9026c862ca',
          to_address: '0xac4df82fe37ea2187bc8c011a23d743b4f39019a',
          value: '100000',
          tx_hash: '0x04cbcb236043d8fb7839e07bbc7f5eed692fb2ca55d897f1101eac3e3ad4fab8',
          log_index: 0,
          block_number: 483920,
          block_time: null,
        },
      },
      {
        line: 3,
        row: {
          chain_id: 137,
          contract: '0xf4eced2f682ce333f96f2d8966c613ded8fc95dd',
          from_address: '0x9b22a80d5c7b3374a05b446081f97d0a34079e7f',
          to_address: '0x66f183060253cfbe45beff1e6e7ebbe318c81e56',
          value: '200000',
          tx_hash: '0xcea6f89720cc1d2f46cc7a935463ae0b99dd5fad9c91bb7357de5421511cee49',
          log_index: 1,
          block_number: 483920,
          block_time: null,
        },
      },
    ]);
  });

  it('uses chain 1 when the job names no chain', () => {
    const csv = readSimpleCsv(ETL_TOKEN_TRANSFERS);
    const { accepted } = validateChunk(job({ kind: 'token-transfers', format: 'ethereum-etl', ...csv }));
    expect(accepted.map((a) => a.row.chain_id)).toEqual([1, 1]);
  });

  it('names the canonical field when an ethereum-etl cell is blank', () => {
    const csv = readSimpleCsv(ETL_TOKEN_TRANSFERS);
    const row = csv.rows[0]!.map((cell, i) => (csv.header[i] === 'block_number' ? '' : cell));
    const { rejects } = validateChunk(job({ kind: 'token-transfers', format: 'ethereum-etl', ...csv, rows: [row], lines: [2] }));
    expect(rejects.map((r) => [r.line, r.reason])).toEqual([[2, 'blockNumber: missing']]);
  });

  it('reads an ethereum-etl JSON line, whose big values are JSON numbers, exactly', () => {
    const line =
      '{"hash": "0xeb107a40ba73a50c79a9f2026e902d758d1c5e5e211f7a7db1b294f88f118dd0", "nonce": 323847, ' +
      '"block_number": 17173049, "from_address": "0xae2fc483527b8ef99eb5d9b44875f005ba1fae13", ' +
      '"to_address": null, "value": 200000000000000001, "block_timestamp": 1683029999, "max_fee_per_gas": null}';
    const { accepted, rejects } = validateChunk(
      job({ kind: 'transactions', format: 'ethereum-etl', chainId: 1, rows: [line], lines: [1] }),
    );
    expect(rejects).toEqual([]);
    expect(accepted[0]!.row).toEqual({
      chain_id: 1,
      hash: '0xeb107a40ba73a50c79a9f2026e902d758d1c5e5e211f7a7db1b294f88f118dd0',
      block_number: 17173049,
      block_time: 1683029999,
      from_address: '0xae2fc483527b8ef99eb5d9b44875f005ba1fae13',
      to_address: '',
      value: '200000000000000001',
    });
  });
});

describe('ethereum-etl mapper', () => {
  it('supports transactions and token-transfers', () => {
    expect(ethereumEtlKinds).toEqual(['transactions', 'token-transfers']);
  });

  it('throws a message listing the supported kinds for any other kind', () => {
    expect(() => ethereumEtlMapper('profiles')).toThrow(
      '--format ethereum-etl is available for transactions and token-transfers, not profiles',
    );
  });

  it('fails the whole chunk up front for an unsupported kind', () => {
    expect(() =>
      validateChunk(job({ kind: 'nft-transfers', format: 'ethereum-etl', rows: ['{}'], lines: [1] })),
    ).toThrow(/not nft-transfers/);
  });
});
