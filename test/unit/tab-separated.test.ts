import { describe, expect, it } from 'vitest';
import { cell, tabSeparated } from '../../shared/clickhouse/tab-separated.ts';

describe('TabSeparated cells', () => {
  it('escapes backslash, tab, newline, carriage return and NUL, and nothing else', () => {
    expect(cell('a\\b\tc\nd\re\0f')).toBe('a\\\\b\\tc\\nd\\re\\0f');
    expect(cell(`it's "quoted" ü`)).toBe(`it's "quoted" ü`);
  });

  it('writes null and undefined as \\N', () => {
    expect(cell(null)).toBe('\\N');
    expect(cell(undefined)).toBe('\\N');
  });

  it('writes DateTime seconds with exactly 10 digits, which ClickHouse 18.16 requires', () => {
    expect(cell(5, true)).toBe('0000000005');
    expect(cell(1_700_000_000, true)).toBe('1700000000');
    expect(cell(5)).toBe('5');
  });

  it('writes lists as array literals whose quoted strings carry their own escapes', () => {
    expect(cell(['a', "b'c", 'd\te'])).toBe("['a','b\\'c','d\\te']");
    expect(cell([1, 2])).toBe('[1,2]');
  });

  it('refuses values ClickHouse could not read back', () => {
    expect(() => cell(Number.NaN)).toThrow(TypeError);
    expect(() => cell({} as never)).toThrow(TypeError);
  });

  it('writes rows in the order of the columns given', () => {
    expect(tabSeparated([{ b: 2, a: 'x' }, { a: 'y', b: 3 }], ['a', 'b'])).toBe('x\t2\ny\t3\n');
  });
});
