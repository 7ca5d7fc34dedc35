import type { TestApp } from './test-app';

export const METRICS_TOKEN = 'metrics-token-for-the-e2e-suite';

/**
 * The Prometheus exposition text as series → value. A series is written
 * `name{a="x",b="y"}` with its labels sorted, so tests name it exactly.
 */
export function parseExposition(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    const key = line.slice(0, space);
    const open = key.indexOf('{');
    const name = open < 0 ? key : key.slice(0, open);
    const labels = open < 0 ? '' : key.slice(open + 1, key.lastIndexOf('}'));
    const sorted = labels === '' ? [] : labels.split(/,(?=[a-z_]+=")/).sort();
    series.set(
      sorted.length ? `${name}{${sorted.join(',')}}` : name,
      Number(line.slice(space + 1)),
    );
  }
  return series;
}

/** `name{labels}` with the labels sorted, as parseExposition keys them. */
export function seriesName(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  return pairs.length ? `${name}{${pairs.join(',')}}` : name;
}

export async function scrape(t: TestApp): Promise<Map<string, number>> {
  const res = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return parseExposition(res.text);
}

/** The value of one series (0 when absent: a counter not yet moved). */
export function valueOf(
  metrics: Map<string, number>,
  name: string,
  labels: Record<string, string> = {},
): number {
  return metrics.get(seriesName(name, labels)) ?? 0;
}
