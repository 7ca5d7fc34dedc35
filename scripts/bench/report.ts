import type { Aggregate } from './load';

/** A plain-text table (also valid Markdown) with right-aligned numbers. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.every((r) => /^[-+]?[\d.,×x%]*$|^—$|^n\/a$/.test(r[i] ?? '')));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (numeric[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export const fixed = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : '—');

export interface ResultRow {
  set: string;
  connections: number;
  ours: Aggregate;
  baseline: Aggregate;
}

export function resultTable(rows: ResultRow[]): string {
  const body: string[][] = [];
  for (const row of rows) {
    for (const [name, result] of [['ours', row.ours], ['baseline', row.baseline]] as const) {
      body.push([
        name === 'ours' ? row.set : '',
        name,
        String(row.connections),
        fixed(result.rps, 0),
        fixed(result.p50, 2),
        fixed(result.p99, 2),
        `${result.errors}/${result.non2xx}`,
        fixed(result.maxRssMb, 0),
        fixed(result.cpuMsPerRequest, 2),
        name === 'ours' ? `${fixed(row.ours.rps / row.baseline.rps, 2)}×` : '',
      ]);
    }
  }
  return table(
    ['request set', 'server', 'conn', 'req/s', 'p50 ms', 'p99 ms', 'err/non-2xx', 'RSS MB', 'CPU ms/req', 'ours/base'],
    body,
  );
}

export interface ScalingRow {
  size: string;
  set: string;
  ours: Aggregate;
  baseline: Aggregate;
  /** The same set's figures at the smallest size. */
  first?: { ours: Aggregate; baseline: Aggregate };
}

export function scalingTable(rows: ScalingRow[]): string {
  const growth = (now: number, then: number | undefined) =>
    then === undefined || !(then > 0) ? '—' : `${fixed(now / then, 2)}×`;
  return table(
    ['events', 'request set', 'ours p50', 'ours p99', 'p50 vs smallest', 'p99 vs smallest', 'ours req/s', 'base p50', 'base p99', 'base p50 vs smallest'],
    rows.map((row) => [
      row.size,
      row.set,
      fixed(row.ours.p50, 2),
      fixed(row.ours.p99, 2),
      growth(row.ours.p50, row.first?.ours.p50),
      growth(row.ours.p99, row.first?.ours.p99),
      fixed(row.ours.rps, 0),
      fixed(row.baseline.p50, 2),
      fixed(row.baseline.p99, 2),
      growth(row.baseline.p50, row.first?.baseline.p50),
    ]),
  );
}
