/**
 * The evaluation's chart: grouped bars, one group per metric@k, one bar per method, as a
 * self-contained SVG (no fonts or scripts to fetch).
 */
import type { MetricsAtK } from './ranking-metrics.ts';

export interface MethodResult {
  method: string;
  metrics: MetricsAtK[];
}

const COLORS = ['#2f6fde', '#e8833a', '#3aa55d', '#9b59b6', '#c0392b', '#16a2b8', '#d4ac0d', '#7f8c8d'];

export function qualityChartSvg(title: string, results: readonly MethodResult[]): string {
  const groups = results[0]!.metrics.flatMap((m) => [
    { label: `precision@${m.k}`, pick: (r: MetricsAtK[]) => r.find((x) => x.k === m.k)!.precision },
    { label: `recall@${m.k}`, pick: (r: MetricsAtK[]) => r.find((x) => x.k === m.k)!.recall },
    { label: `nDCG@${m.k}`, pick: (r: MetricsAtK[]) => r.find((x) => x.k === m.k)!.ndcg },
  ]);
  const bar = 16;
  const gap = 22;
  const groupWidth = results.length * bar + gap;
  const left = 50;
  const top = 40;
  const height = 240;
  const width = left + groups.length * groupWidth + 20;
  const max = Math.max(0.01, ...groups.flatMap((g) => results.map((r) => g.pick(r.metrics))));
  const scale = niceCeiling(max);
  const y = (v: number) => top + height - (v / scale) * height;
  const parts: string[] = [];
  parts.push(`<text x="${left}" y="20" font-size="14" font-weight="bold">${escape(title)}</text>`);
  for (let t = 0; t <= 4; t++) {
    const v = (scale * t) / 4;
    parts.push(`<line x1="${left}" x2="${width - 10}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`);
    parts.push(`<text x="${left - 6}" y="${y(v) + 4}" font-size="10" text-anchor="end">${tickLabel(v)}</text>`);
  }
  groups.forEach((g, gi) => {
    const x0 = left + gap / 2 + gi * groupWidth;
    results.forEach((r, ri) => {
      const v = g.pick(r.metrics);
      parts.push(
        `<rect x="${x0 + ri * bar}" y="${y(v)}" width="${bar - 2}" height="${top + height - y(v)}" fill="${COLORS[ri % COLORS.length]}"><title>${escape(r.method)} ${g.label} = ${v.toFixed(4)}</title></rect>`,
      );
    });
    parts.push(`<text x="${x0 + (results.length * bar) / 2}" y="${top + height + 16}" font-size="10" text-anchor="middle">${g.label}</text>`);
  });
  results.forEach((r, ri) => {
    const lx = left + ri * 150;
    parts.push(`<rect x="${lx}" y="${top + height + 30}" width="10" height="10" fill="${COLORS[ri % COLORS.length]}"/>`);
    parts.push(`<text x="${lx + 14}" y="${top + height + 39}" font-size="11">${escape(r.method)}</text>`);
  });
  const totalHeight = top + height + 52;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${totalHeight}" viewBox="0 0 ${width} ${totalHeight}" font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n${parts.join('\n')}\n</svg>\n`;
}

/** The table the chart shows, as Markdown. */
export function qualityTableMarkdown(results: readonly MethodResult[]): string {
  const ks = results[0]!.metrics.map((m) => m.k);
  const header = ['method', ...ks.flatMap((k) => [`P@${k}`, `R@${k}`, `nDCG@${k}`])];
  const rows = results.map((r) => [r.method, ...r.metrics.flatMap((m) => [m.precision, m.recall, m.ndcg].map((v) => v.toFixed(4)))]);
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

function niceCeiling(v: number): number {
  const step = 10 ** Math.floor(Math.log10(v));
  return Math.ceil(v / step) * step;
}

function escape(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/** A tick value as short as it can be without rounding it: quarters of 0.3 are 0.075 and 0.225, not 0.08 and 0.23. */
function tickLabel(value: number): string {
  return String(Number(value.toFixed(4)));
}
