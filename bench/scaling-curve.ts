/** A log-log line chart of a benchmark's seconds by size, with its baseline, as a self-contained SVG. */

export interface CurvePoint {
  x: number;
  y: number;
  baseline: number;
}

export function scalingCurveSvg(title: string, points: readonly CurvePoint[]): string {
  const width = 560;
  const height = 340;
  const margin = { left: 60, right: 20, top: 40, bottom: 50 };
  const xs = points.map((p) => p.x);
  const ys = points.flatMap((p) => [p.y, p.baseline]).filter((v) => v > 0);
  const [x0, x1] = logRange(Math.min(...xs), Math.max(...xs));
  const [y0, y1] = logRange(Math.min(...ys), Math.max(...ys));
  const px = (x: number) => margin.left + ((Math.log10(x) - x0) / (x1 - x0 || 1)) * (width - margin.left - margin.right);
  const py = (y: number) => height - margin.bottom - ((Math.log10(Math.max(y, 1e-3)) - y0) / (y1 - y0 || 1)) * (height - margin.top - margin.bottom);
  const parts: string[] = [`<text x="${margin.left}" y="22" font-size="14" font-weight="bold">${title}</text>`];
  for (let e = Math.ceil(y0); e <= y1; e++) {
    parts.push(`<line x1="${margin.left}" x2="${width - margin.right}" y1="${py(10 ** e)}" y2="${py(10 ** e)}" stroke="#ddd"/>`);
    parts.push(`<text x="${margin.left - 6}" y="${py(10 ** e) + 4}" font-size="10" text-anchor="end">${10 ** e} s</text>`);
  }
  for (const p of points) parts.push(`<text x="${px(p.x)}" y="${height - margin.bottom + 16}" font-size="10" text-anchor="middle">${p.x.toLocaleString('en-US')}</text>`);
  parts.push(`<text x="${width / 2}" y="${height - 12}" font-size="11" text-anchor="middle">profiles</text>`);
  const line = (values: number[], color: string, label: string, row: number) => {
    const d = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${px(p.x).toFixed(1)},${py(values[i]!).toFixed(1)}`).join(' ');
    parts.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"/>`);
    points.forEach((p, i) => parts.push(`<circle cx="${px(p.x)}" cy="${py(values[i]!)}" r="3" fill="${color}"><title>${label}: ${values[i]!.toFixed(1)} s</title></circle>`));
    parts.push(`<rect x="${margin.left + 10}" y="${margin.top + row * 16}" width="10" height="10" fill="${color}"/><text x="${margin.left + 24}" y="${margin.top + 9 + row * 16}" font-size="11">${label}</text>`);
  };
  line(points.map((p) => p.y), '#2f6fde', 'nightly run', 0);
  line(points.map((p) => p.baseline), '#9aa0a6', 'one pass over the inputs (baseline)', 1);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n${parts.join('\n')}\n</svg>\n`;
}

function logRange(min: number, max: number): [number, number] {
  return [Math.floor(Math.log10(min)), Math.ceil(Math.log10(max))];
}
