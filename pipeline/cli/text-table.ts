/** Plain-text tables for the CLI's reports. */

/** Columns padded to line up: numbers to the right, text to the left. */
export function formatTable(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const numeric = rows[0]!.map((_, i) => rows.slice(1).every((r) => /^-?\d+$/.test(r[i] ?? '')) && rows.length > 1);
  return rows.map((r) =>
    r.map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd(),
  );
}
