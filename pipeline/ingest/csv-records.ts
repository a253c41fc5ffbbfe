/**
 * The records of a CSV text (RFC 4180), line by line, with the 1-based line each starts on.
 * A record that is not valid CSV (a quote inside an unquoted cell, a closing quote followed
 * by something other than a comma, a quote never closed) does not stop the read: it comes
 * out as malformed, with the reason and the line it starts on, and reading goes on at the
 * next line. A quoted cell may span lines; one still open after MAX_QUOTED_LINES lines, or
 * at the end of the file, is a quote never closed, reported where it opened, and the lines
 * after that line are read again as records of their own.
 */

export type CsvRecord = { line: number; cells: string[] } | { line: number; malformed: string; raw: string };

export const MAX_QUOTED_LINES = 10_000;

type Parsed = { cells: string[]; lines: number } | { malformed: string } | 'more';

export async function* csvRecords(lines: AsyncIterable<string>): AsyncGenerator<CsvRecord> {
  const pending: string[] = [];
  let first = 1; // the line number of pending[0]
  let start = true;
  // Inside an open quoted cell, only a line with a quote (or the limit) can end it: no new parse before.
  let inQuote = false;
  const drain = function* (atEnd: boolean): Generator<CsvRecord> {
    while (pending.length > 0) {
      if (pending[0] === '') {
        pending.shift();
        first++;
        continue;
      }
      const parsed = parseRecord(pending, first, atEnd);
      inQuote = parsed === 'more';
      if (parsed === 'more') return;
      if ('cells' in parsed) {
        yield { line: first, cells: parsed.cells };
        pending.splice(0, parsed.lines);
        first += parsed.lines;
      } else {
        yield { line: first, malformed: parsed.malformed, raw: pending[0]! };
        pending.shift();
        first++;
      }
    }
  };
  for await (const text of lines) {
    pending.push(start ? text.replace(/^\uFEFF/, '') : text);
    start = false;
    if (!inQuote || text.includes('"') || pending.length >= MAX_QUOTED_LINES) yield* drain(false);
  }
  yield* drain(true);
}

/** The record that starts at pending[0]: its cells and how many lines it takes, why it is not CSV, or 'more' lines needed. */
function parseRecord(pending: readonly string[], first: number, atEnd: boolean): Parsed {
  const cells: string[] = [];
  let row = 0;
  let text = pending[0]!;
  let i = 0;
  for (;;) {
    if (text[i] === '"') {
      const opened = first + row;
      let value = '';
      i++;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote === -1) {
          value += `${text.slice(i)}\n`;
          row++;
          if (row < pending.length && row < MAX_QUOTED_LINES) {
            text = pending[row]!;
            i = 0;
            continue;
          }
          if (!atEnd && row < MAX_QUOTED_LINES) return 'more';
          return { malformed: `a quote opened at line ${opened} is never closed` };
        }
        value += text.slice(i, quote);
        if (text[quote + 1] === '"') {
          value += '"';
          i = quote + 2;
          continue;
        }
        i = quote + 1;
        break;
      }
      cells.push(value);
      if (i === text.length) return { cells, lines: row + 1 };
      if (text[i] !== ',') {
        return { malformed: `a quoted cell is closed at line ${first + row} but followed by ${JSON.stringify(text[i])}, not by a comma or the end of the line` };
      }
      i++;
      continue;
    }
    const comma = text.indexOf(',', i);
    const value = text.slice(i, comma === -1 ? text.length : comma);
    if (value.includes('"')) {
      return { malformed: `a quote inside an unquoted cell at line ${first + row} (quote the whole cell and double its quotes: "say ""hi""")` };
    }
    cells.push(value);
    if (comma === -1) return { cells, lines: row + 1 };
    i = comma + 1;
  }
}
