/**
 * The transactions fast path must never accept what the schema refuses, and must yield
 * exactly the schema's row (same keys in the same order) for whatever it accepts.
 * Checked on hand-picked edge values of every field and on thousands of random mixes; the
 * line fast path also on thousands of random one-character edits of canonical lines, and
 * the TabSeparated line writer against the line fast path in the same ways.
 */
import { describe, it, expect } from 'vitest';
import { transactionRecord } from '../../shared/records/chain-activity.ts';
import { InsertBody } from '../../shared/clickhouse/insert-body.ts';
import { tabSeparated } from '../../shared/clickhouse/tab-separated.ts';
import { transactionFastPath } from '../../shared/records/transaction-fast-path.ts';
import { TRANSACTION_TSV_COLUMNS, writeTransactionTsv } from '../../shared/records/transaction-tsv-line.ts';
import { MAINNET_TRANSACTION } from '../fixtures/transactions.ts';
import { transactionLineFastPath } from '../support/canonical-transaction-line.ts';
import { Rng } from '../../pipeline/generate/random.ts';

const VALID = MAINNET_TRANSACTION;

const ABSENT = Symbol('absent');
const ADDR = VALID.from;
const common = [ABSENT, null, '', ' ', true, {}, [], 0, -1, 1.5, NaN, '1', 'x'];
/** Values to try per field: the usual shapes, near misses, and other types. */
const candidates: Record<string, unknown[]> = {
  chainId: [...common, 1, 137, 4_294_967_295, 4_294_967_296, '137', ' 1 ', 2 ** 53, -0, 1e3],
  hash: [...common, VALID.hash, VALID.hash.toLowerCase(), ` ${VALID.hash}`, `${VALID.hash} `, VALID.hash.slice(0, -1), `${VALID.hash}0`, `0X${VALID.hash.slice(2)}`, VALID.hash.replace('E', 'g'), `${VALID.hash}\n`],
  blockNumber: [...common, 3300400, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, '3300400', ' 7 ', 1e21, -0],
  blockTime: [...common, 1488775107, 4_294_967_295, 4_294_967_296, 1_700_000_000_000, 999_999_999_999, 1e13, '1488775107', '2017-03-06T04:38:27Z', '2017-03-06 04:38:27 UTC', -0],
  from: [...common, ADDR, ADDR.toUpperCase().replace('0X', '0x'), ` ${ADDR}`, `${ADDR}\t`, ADDR.slice(0, -1), `${ADDR}0`, `0X${ADDR.slice(2)}`, `${ADDR}\n`],
  to: [...common, ADDR, ADDR.toUpperCase().replace('0X', '0x'), ` ${ADDR}`, ADDR.slice(0, -1), `${ADDR}\n`],
  value: [...common, '0', '7', '1000000000000000000', '007', '-1', ' 7', '7 ', '1e3', '0x10', 7, 0, 2 ** 53, 2 ** 53 - 1, '1.0', '99999999999999999999999999999', `7\n`],
};
const extraFields: Record<string, unknown>[] = [{}, { ratio: 1 }, { block_number: 1 }, JSON.parse('{"__proto__": 1}'), { constructor: 'x' }, { toString: 1 }];

function record(overrides: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const r: Record<string, unknown> = { ...VALID, ...overrides };
  for (const [k, v] of Object.entries(overrides)) if (v === ABSENT) delete r[k];
  // Own properties as JSON.parse makes them (spread would drop an own __proto__).
  for (const k of Object.keys(extra)) Object.defineProperty(r, k, { value: extra[k], enumerable: true, writable: true, configurable: true });
  return r;
}

/** The property under test: fast path accepts => schema accepts, with an identical row. */
function expectAgreement(input: Record<string, unknown>): 'fast' | 'schema' {
  const fast = transactionFastPath(input);
  const schema = transactionRecord.safeParse(input);
  if (fast === undefined) return 'schema';
  expect(schema.success, `fast path accepted what the schema refuses: ${JSON.stringify(input)}`).toBe(true);
  expect(fast).toEqual(schema.data);
  expect(Object.keys(fast)).toEqual(Object.keys(schema.data!));
  return 'fast';
}

describe('transactionFastPath', () => {
  it('takes the canonical record and returns the schema row', () => {
    expect(expectAgreement(record({}))).toBe('fast');
    expect(transactionFastPath(record({}))).toEqual({
      chain_id: 1,
      hash: VALID.hash.toLowerCase(),
      block_number: 3300400,
      block_time: 1488775107,
      from_address: VALID.from,
      to_address: VALID.to,
      value: '1000000000000000000',
    });
  });

  it('takes a contract creation (no, null or empty to) as to_address ""', () => {
    for (const to of [ABSENT, null, '']) {
      expect(expectAgreement(record({ to }))).toBe('fast');
      expect(transactionFastPath(record({ to }))!.to_address).toBe('');
    }
  });

  it.each(Object.keys(candidates))('agrees with the schema on every edge value of %s', (field) => {
    for (const value of candidates[field]!) expectAgreement(record({ [field]: value }));
  });

  it('leaves records with unknown fields to the schema', () => {
    for (const extra of extraFields.slice(1)) expect(transactionFastPath(record({}, extra))).toBeUndefined();
  });

  it('agrees with the schema on 20,000 random mixes of field values', () => {
    const rng = new Rng(42, 0, 0, 0);
    const random = () => rng.float();
    const pick = <T>(values: T[]): T => rng.pick(values);
    const taken = { fast: 0, schema: 0 };
    for (let i = 0; i < 20_000; i++) {
      // Mostly valid fields, so that both paths are exercised.
      const overrides = Object.fromEntries(
        Object.keys(candidates).filter(() => random() < 0.3).map((f) => [f, pick(candidates[f]!)]),
      );
      taken[expectAgreement(record(overrides, random() < 0.1 ? pick(extraFields) : {}))]++;
    }
    expect(taken.fast).toBeGreaterThan(1_000);
    expect(taken.schema).toBeGreaterThan(1_000);
  });
});

/** Line fast path accepts => the line parses and the schema accepts it, with an identical row. */
function expectLineAgreement(line: string): 'fast' | 'schema' {
  const fast = transactionLineFastPath(line);
  if (fast === undefined) return 'schema';
  let parsed: unknown;
  expect(() => (parsed = JSON.parse(line)), `fast path accepted a line that is not JSON: ${line}`).not.toThrow();
  const schema = transactionRecord.safeParse(parsed);
  expect(schema.success, `fast path accepted what the schema refuses: ${line}`).toBe(true);
  expect(fast).toEqual(schema.data);
  expect(Object.keys(fast)).toEqual(Object.keys(schema.data!));
  return 'fast';
}

describe('transactionLineFastPath', () => {
  const canonical = JSON.stringify(VALID);

  it('takes a canonical line, with or without to, and returns the schema row', () => {
    expect(expectLineAgreement(canonical)).toBe('fast');
    for (const to of [ABSENT, null, '']) expect(expectLineAgreement(JSON.stringify(record({ to })))).toBe('fast');
    expect(transactionLineFastPath(JSON.stringify(record({ to: null })))!.to_address).toBe('');
  });

  it('leaves other spellings of the same record to JSON.parse and the schema', () => {
    const { value: _v, ...rest } = VALID;
    for (const line of [
      JSON.stringify(VALID, null, 1),
      JSON.stringify({ value: VALID.value, ...rest }),
      canonical.replace('"chainId":1', '"chainId":"1"'),
      canonical.replace('"blockTime":1488775107', '"blockTime":1488775107000'),
      canonical.replace('"blockNumber":3300400', '"blockNumber":9007199254740993'),
      canonical.replace('"chainId":1', '"chainId":4294967296'),
      canonical.replace('"chainId":1', '"chainId":0'),
      canonical.replace('"value":"1000000000000000000"', '"value":1000000000000000000'),
      canonical.replace('}', ',"to":null}'),
      `${canonical} `,
    ]) {
      expect(transactionLineFastPath(line), line).toBeUndefined();
    }
  });

  it.each(Object.keys(candidates))('agrees with the schema on canonical lines with every edge value of %s', (field) => {
    for (const value of candidates[field]!) expectLineAgreement(JSON.stringify(record({ [field]: value })));
  });

  it('agrees with the schema on 20,000 random one-character edits of canonical lines', () => {
    const lines = [canonical, JSON.stringify(record({ to: null })), JSON.stringify(record({ to: ABSENT })), JSON.stringify(record({ value: '0', blockNumber: 0 }))];
    const taken = { fast: 0, schema: 0 };
    for (const edit of oneCharacterEdits(lines, '0123456789abcdefABCDEFxX{}[]":,. -\\nule', 7, 20_000)) taken[expectLineAgreement(edit)]++;
    expect(taken.fast).toBeGreaterThan(1_000);
    expect(taken.schema).toBeGreaterThan(1_000);
  });
});

const INGESTED_AT = 1_763_856_000;
const TSV_DATE_TIMES = new Set(['block_time', 'ingested_at']);

/** The row writeTransactionTsv writes for a line, or undefined when it declines (and then wrote nothing). */
function tsvOf(line: string, before = 'x\ty\n'): string | undefined {
  const body = new InsertBody(0);
  body.writeText(before);
  // The line amid other bytes, as it is in a chunk.
  const bytes = Buffer.from(`{"a":1}\n${line}\n{"b":2}`);
  const start = 8;
  const written = writeTransactionTsv(bytes, start, start + Buffer.byteLength(line), body, Buffer.from(String(INGESTED_AT)));
  const text = body.bytes().toString();
  expect(text.startsWith(before)).toBe(true);
  if (!written) expect(text).toBe(before);
  return written ? text.slice(before.length) : undefined;
}

/** writeTransactionTsv writes exactly the row the line fast path makes, as tabSeparated encodes it (and so the schema's row). */
function expectTsvAgreement(line: string): 'fast' | 'schema' {
  const row = transactionLineFastPath(line);
  const tsv = tsvOf(line);
  if (row === undefined) {
    expect(tsv, `wrote a row for a line the line fast path declines: ${line}`).toBeUndefined();
    return 'schema';
  }
  expect(tsv, line).toBe(tabSeparated([{ ...row, ingested_at: INGESTED_AT }], TRANSACTION_TSV_COLUMNS, TSV_DATE_TIMES));
  return 'fast';
}

describe('writeTransactionTsv', () => {
  const canonical = JSON.stringify(VALID);

  it('writes a canonical line as its TabSeparated row: lowercase hex, 10-digit times, ingested_at last', () => {
    expect(tsvOf(canonical)).toBe(
      `1\t${VALID.hash.toLowerCase()}\t3300400\t1488775107\t${VALID.from}\t${VALID.to}\t1000000000000000000\t${INGESTED_AT}\n`,
    );
    expect(tsvOf(JSON.stringify(record({ blockTime: 0, to: null }))))
      .toBe(`1\t${VALID.hash.toLowerCase()}\t3300400\t0000000000\t${VALID.from}\t\t1000000000000000000\t${INGESTED_AT}\n`);
  });

  it('agrees with the line fast path on a line with or without to, and on other spellings', () => {
    const { value: _v, ...rest } = VALID;
    for (const line of [
      canonical,
      ...[ABSENT, null, ''].map((to) => JSON.stringify(record({ to }))),
      JSON.stringify(VALID, null, 1),
      JSON.stringify({ value: VALID.value, ...rest }),
      canonical.replace('"blockNumber":3300400', '"blockNumber":9007199254740991'),
      canonical.replace('"blockNumber":3300400', '"blockNumber":9007199254740992'),
      canonical.replace('"blockNumber":3300400', '"blockNumber":99999999999999999'),
      canonical.replace('"blockNumber":3300400', '"blockNumber":03300400'),
      canonical.replace('"chainId":1', '"chainId":4294967295'),
      canonical.replace('"chainId":1', '"chainId":4294967296'),
      canonical.replace('"chainId":1', '"chainId":0'),
      canonical.replace('"blockTime":1488775107', '"blockTime":4294967296'),
      canonical.replace('"value":"1000000000000000000"', '"value":"0"'),
      canonical.replace('"value":"1000000000000000000"', '"value":"00"'),
      canonical.replace('"value":"1000000000000000000"', '"value":""'),
      canonical.replace('}', ',"to":null}'),
      canonical.replace('0x', '0X'),
      `${canonical} `,
      `${canonical}\r`,
      canonical.slice(0, -1),
      '',
    ]) {
      expectTsvAgreement(line);
    }
  });

  it.each(Object.keys(candidates))('agrees with the line fast path on canonical lines with every edge value of %s', (field) => {
    for (const value of candidates[field]!) expectTsvAgreement(JSON.stringify(record({ [field]: value })));
  });

  it('agrees with the line fast path on 20,000 random one-character edits of canonical lines', () => {
    const lines = [canonical, JSON.stringify(record({ to: null })), JSON.stringify(record({ to: '' })), JSON.stringify(record({ to: ABSENT })), JSON.stringify(record({ value: '0', blockNumber: 0, blockTime: 7 }))];
    const taken = { fast: 0, schema: 0 };
    for (const edit of oneCharacterEdits(lines, '0123456789abcdefABCDEFxX{}[]":,. -\\nule\t\r', 11, 20_000)) taken[expectTsvAgreement(edit)]++;
    expect(taken.fast).toBeGreaterThan(1_000);
    expect(taken.schema).toBeGreaterThan(1_000);
  });
});

/**
 * `count` deterministic one-character edits of the lines, in turn: a character replaced,
 * removed or inserted at a random place, drawn from `alphabet` (the generator's seeded Rng).
 */
function* oneCharacterEdits(lines: string[], alphabet: string, seed: number, count: number): Generator<string> {
  const rng = new Rng(seed, 0, 0, 0);
  for (let i = 0; i < count; i++) {
    const line = lines[i % lines.length]!;
    const at = rng.below(line.length);
    const c = alphabet[rng.below(alphabet.length)]!;
    yield [line.slice(0, at) + c + line.slice(at + 1), line.slice(0, at) + line.slice(at + 1), line.slice(0, at) + c + line.slice(at)][i % 3]!;
  }
}
