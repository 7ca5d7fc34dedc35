import { RawResponse, sendRaw } from './http';
import { BENCH_HOST, RequestSet } from './request-sets';

export interface Target {
  name: string;
  port: number;
}

export interface Comparison {
  set: RequestSet;
  ok: boolean;
  status: number;
  bytes: number;
  /** Why they differ, with the bytes around the first difference. */
  diff?: string;
}

/** List headers that must match too (the request ID and Date never do). */
const COMPARED_HEADERS = ['content-type', 'x-total', 'x-totalpages', 'link'];

/**
 * Sends each request set once to both servers and compares status, the list
 * headers and the body bytes exactly. A create cannot answer the same bytes
 * twice (a new ID, a slug with a suffix or another title, the clock): its two
 * bodies are compared after replacing exactly those values by placeholders,
 * then re-serialised, so field order and every other byte still count.
 */
export async function compareServers(
  sets: RequestSet[],
  ours: Target,
  baseline: Target,
  token: string,
  /**
   * Runs between the two requests of a POST set: the bench removes the first
   * create there, so the second one starts from the same data (the embedded
   * terms' published counts would otherwise differ by one).
   */
  between?: (set: RequestSet) => Promise<void>,
): Promise<Comparison[]> {
  const results: Comparison[] = [];
  for (const set of sets) {
    const headers: Record<string, string> = { host: BENCH_HOST };
    if (set.auth) headers.authorization = `Bearer ${token}`;
    const fetchFrom = (target: Target, tag: string) =>
      sendRaw({ port: target.port, method: set.method, path: set.path, headers, body: set.body?.(0, tag) });
    const a = await fetchFrom(ours, 'ours');
    if (set.method !== 'GET') await between?.(set);
    const b = await fetchFrom(baseline, 'base');
    results.push(compareResponses(set, a, b, ours.name, baseline.name));
  }
  return results;
}

export function compareResponses(
  set: RequestSet,
  a: RawResponse,
  b: RawResponse,
  nameA = 'ours',
  nameB = 'baseline',
): Comparison {
  const base = { set, status: a.status, bytes: a.body.length };
  if (a.status !== b.status) {
    return {
      ...base,
      ok: false,
      diff: `status ${nameA} ${a.status}, ${nameB} ${b.status}\n${nameA}: ${a.body.toString().slice(0, 400)}\n${nameB}: ${b.body.toString().slice(0, 400)}`,
    };
  }
  for (const header of COMPARED_HEADERS) {
    if (set.method === 'POST' && header !== 'content-type') continue;
    if (String(a.headers[header] ?? '') !== String(b.headers[header] ?? '')) {
      return { ...base, ok: false, diff: `header ${header}: ${nameA} "${String(a.headers[header])}", ${nameB} "${String(b.headers[header])}"` };
    }
  }
  const [bytesA, bytesB] =
    set.method === 'POST' ? [normaliseCreated(a.body), normaliseCreated(b.body)] : [a.body, b.body];
  if (bytesA.equals(bytesB)) return { ...base, ok: true };
  return { ...base, ok: false, diff: firstDifference(bytesA, bytesB, nameA, nameB) };
}

/** The values of a created record that necessarily differ between two creates. */
export function normaliseCreated(body: Buffer): Buffer {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return body;
  }
  if (typeof record.id !== 'number' || typeof record.slug !== 'string') return body;
  const id = String(record.id);
  // global_id numbers IDs across kinds (`<host>?id=<n>`, src/posts/post-fields.ts): its own n.
  const globalId = typeof record.global_id === 'string' ? /\?id=(\d+)$/.exec(record.global_id)?.[1] : undefined;
  const replacements: Array<[string, string]> = [
    ...(globalId ? [[`?id=${globalId}"`, '?id=<global-id>"'] as [string, string]] : []),
    [`?id=${id}"`, '?id=<id>"'],
    [`/events/${id}"`, '/events/<id>"'],
    [`/events/${id}.ics"`, '/events/<id>.ics"'],
    [`/${record.slug}/"`, '/<slug>/"'],
    [`"slug":"${record.slug}"`, '"slug":"<slug>"'],
    [`"title":"${String(record.title)}"`, '"title":"<title>"'],
    [`"name":"${String(record.title)}"`, '"name":"<title>"'],
  ];
  let text = JSON.stringify({ ...record, id: 0, date: '<now>', date_utc: '<now>', modified: '<now>', modified_utc: '<now>' });
  for (const [from, to] of replacements) text = text.split(from).join(to);
  return Buffer.from(text);
}

function firstDifference(a: Buffer, b: Buffer, nameA: string, nameB: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 120);
  return (
    `bodies differ at byte ${i} (${nameA} ${a.length} bytes, ${nameB} ${b.length} bytes)\n` +
    `${nameA}:     …${a.subarray(from, i + 160).toString()}…\n` +
    `${nameB}: …${b.subarray(from, i + 160).toString()}…`
  );
}
