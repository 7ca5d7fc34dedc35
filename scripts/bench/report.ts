import type { Aggregate } from './load';

/** A plain-text table (also valid Markdown) with right-aligned numbers. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) =>
    rows.every((r) => /^[-+]?[\d.,×x%]*$|^—$|^n\/a$/.test(r[i] ?? '')),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (numeric[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export const fixed = (value: number, digits = 1): string =>
  Number.isFinite(value) ? value.toFixed(digits) : '—';

export interface ResultRow {
  set: string;
  connections: number;
  ours: Aggregate;
  baseline: Aggregate;
  /** The minimal raw server; absent for the sets it does not answer. */
  minimal?: Aggregate;
}

const ratio = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined || !(b > 0) || !Number.isFinite(a)
    ? '—'
    : `${fixed(a / b, 2)}×`;

/** One line per server, set and connection count. */
export function resultTable(rows: ResultRow[]): string {
  const body: string[][] = [];
  for (const row of rows) {
    const servers = [
      ['ours', row.ours],
      ['baseline', row.baseline],
      ...(row.minimal ? [['minimal', row.minimal] as const] : []),
    ] as const;
    for (const [name, result] of servers) {
      const ours = name === 'ours';
      body.push([
        ours ? row.set : '',
        name,
        String(row.connections),
        fixed(result.rps, 0),
        fixed(result.p50, 2),
        fixed(result.p99, 2),
        `${result.errors}/${result.non2xx}`,
        fixed(result.maxRssMb, 0),
        fixed(result.cpuMsPerRequest, 2),
        ours ? ratio(row.ours.rps, row.baseline.rps) : '',
        ours ? ratio(row.ours.rps, row.minimal?.rps) : '',
      ]);
    }
  }
  return table(
    [
      'request set',
      'server',
      'conn',
      'req/s',
      'p50 ms',
      'p99 ms',
      'err/non-2xx',
      'RSS MB',
      'CPU ms/req',
      'ours/base',
      'ours/min',
    ],
    body,
  );
}

/**
 * The service against each reference, one line per set and connection count:
 * requests/s, p99 and CPU per request as ratios service ÷ reference, with the
 * service's p99 and CPU figures beside them.
 */
export function ratioTable(rows: ResultRow[]): string {
  return table(
    [
      'request set',
      'conn',
      'req/s ours/base',
      'req/s ours/min',
      'p99 ms ours',
      'p99 ours/base',
      'p99 ours/min',
      'CPU ms/req ours',
      'CPU ours/base',
      'CPU ours/min',
    ],
    rows.map((row) => [
      row.set,
      String(row.connections),
      ratio(row.ours.rps, row.baseline.rps),
      ratio(row.ours.rps, row.minimal?.rps),
      fixed(row.ours.p99, 2),
      ratio(row.ours.p99, row.baseline.p99),
      ratio(row.ours.p99, row.minimal?.p99),
      fixed(row.ours.cpuMsPerRequest, 2),
      ratio(row.ours.cpuMsPerRequest, row.baseline.cpuMsPerRequest),
      ratio(row.ours.cpuMsPerRequest, row.minimal?.cpuMsPerRequest),
    ]),
  );
}

export interface ScalingRow {
  size: string;
  set: string;
  ours: Aggregate;
  baseline: Aggregate;
  minimal: Aggregate;
  /** The same set's figures at the smallest size. */
  first?: { ours: Aggregate; baseline: Aggregate; minimal: Aggregate };
}

export function scalingTable(rows: ScalingRow[]): string {
  const growth = (now: number, then: number | undefined) =>
    then === undefined || !(then > 0) ? '—' : `${fixed(now / then, 2)}×`;
  return table(
    [
      'events',
      'request set',
      'ours p50',
      'ours p99',
      'p50 vs smallest',
      'p99 vs smallest',
      'ours req/s',
      'base p50',
      'base p99',
      'base p50 vs smallest',
      'min p50',
      'min p99',
      'min p50 vs smallest',
    ],
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
      fixed(row.minimal.p50, 2),
      fixed(row.minimal.p99, 2),
      growth(row.minimal.p50, row.first?.minimal.p50),
    ]),
  );
}
