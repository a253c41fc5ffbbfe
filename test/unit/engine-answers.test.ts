import { describe, expect, it } from 'vitest';
import { answerDifference, ordersItsResult, rowsOf, uncomparedBecause } from '../support/engine-answers.ts';
import { statementOf } from '../support/chdb-http.ts';

const ok = (body: string) => ({ status: 200, body });

describe('comparing two engines\' answers', () => {
  it('takes floats that differ in the last bits as the same, and other numbers as different', () => {
    expect(answerDifference('SELECT 1', ok('{"s":0.30000000000000004}\n'), ok('{"s":0.3}\n'))).toBeUndefined();
    expect(answerDifference('SELECT 1', ok('a\t0.7213475204444817\n'), ok('a\t0.7213475204444818\n'))).toBeUndefined();
    expect(answerDifference('SELECT 1', ok('{"s":0.31}\n'), ok('{"s":0.3}\n'))).toMatch(/cell 2: 0.31 against 0.3/);
    expect(answerDifference('SELECT 1', ok('{"n":"26"}\n'), ok('{"n":26}\n'))).toMatch(/"26" against 26/);
  });

  it('ignores the order of rows unless the statement itself orders them', () => {
    expect(answerDifference('SELECT k FROM t', ok('1\n2\n'), ok('2\n1\n'))).toBeUndefined();
    expect(answerDifference('SELECT k FROM (SELECT k FROM t ORDER BY k)', ok('1\n2\n'), ok('2\n1\n'))).toBeUndefined();
    expect(answerDifference('SELECT k FROM t ORDER BY k', ok('1\n2\n'), ok('2\n1\n'))).toMatch(/^row 1: cell 1: "1" against "2"/);
  });

  it('names a failure on one engine only, and counts rows', () => {
    expect(answerDifference('SELECT 1', { status: 500, body: 'Code: 206. DB::Exception: no alias' }, ok('1\n'))).toBe(
      'only the first engine failed: Code: 206. DB::Exception: no alias',
    );
    expect(answerDifference('SELECT 1', { status: 500, body: 'x' }, { status: 404, body: 'y' })).toBeUndefined();
    expect(answerDifference('SELECT 1', ok('a\nb\n'), ok('a\n'))).toBe('2 rows against 1');
  });

  it('reads the zero DateTime as 18.16 and current versions write it as one value', () => {
    expect(answerDifference('SELECT 1', ok('0000-00-00 00:00:00\n'), ok('1970-01-01 00:00:00\n'))).toBeUndefined();
  });

  it('compares arrays of numbers element by element', () => {
    expect(answerDifference('SELECT 1', ok('[0.1,0.2]\n'), ok('[0.1,0.20000000000000001]\n'))).toBeUndefined();
    expect(answerDifference('SELECT 1', ok('[0.1,0.2]\n'), ok('[0.1,0.3]\n'))).toMatch(/cell 1/);
    expect(rowsOf('{"a":1,"b":["x"]}\nx\ty\n')).toEqual([['a', 1, 'b', ['x']], ['x', 'y']]);
  });

  it('sees ORDER BY only outside subqueries and string literals', () => {
    expect(ordersItsResult("SELECT 'ORDER BY' FROM (SELECT 1 ORDER BY 1)")).toBe(false);
    expect(ordersItsResult('SELECT a FROM (SELECT 1 AS a) ORDER BY a LIMIT 3')).toBe(true);
  });

  it('does not compare what reads the catalogue or the clock', () => {
    expect(uncomparedBecause('SELECT name FROM system.columns')).toMatch(/system tables/);
    expect(uncomparedBecause('SELECT now() - t FROM x')).toMatch(/clock/);
    expect(uncomparedBecause('SELECT t FROM x')).toBeUndefined();
  });
});

describe('the chdb HTTP front', () => {
  it('runs an INSERT as its statement and rows, with the URL\'s settings and database', () => {
    const url = new URL('http://h/?query=INSERT+INTO+t+FORMAT+TabSeparated&database=db1&max_threads=2&send_progress_in_http_headers=1&default_format=JSONEachRow');
    expect(statementOf(url, Buffer.from('1\ta\n'))).toEqual({
      sql: 'INSERT INTO t FORMAT TabSeparated\n1\ta\n',
      database: 'db1',
      settings: new Map([['max_threads', '2']]),
      format: 'JSONEachRow',
    });
    expect(statementOf(new URL('http://h/'), Buffer.from('SELECT 1')).sql).toBe('SELECT 1');
    expect(() => statementOf(new URL('http://h/?x;y=1'), Buffer.alloc(0))).toThrow(/not a setting name/);
  });
});
