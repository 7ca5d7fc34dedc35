/** What the imports suites expect of run reports (docs/api.md "Imports"). */

/** A `YYYY-MM-DD HH:MM:SS` UTC time, as the records write them. */
export const wireDate = expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

/** One run's report: an `imported` run of `trigger` with `fetch`, nothing counted, unless `fields` say more. */
export const runReport = (
  trigger: 'upload' | 'created' | 'schedule',
  fetch: Record<string, unknown> | null,
  fields: Record<string, unknown>,
) => ({
  id: expect.any(Number),
  trigger,
  outcome: 'imported',
  started_utc: wireDate,
  finished_utc: wireDate,
  duration_ms: expect.any(Number),
  fetch,
  refusal: null,
  created: 0,
  updated: 0,
  unchanged: 0,
  trashed: 0,
  skipped_count: 0,
  skipped: [],
  ...fields,
});
