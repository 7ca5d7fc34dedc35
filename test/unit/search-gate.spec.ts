import type { ConfigType } from '@nestjs/config';
import { ApiError } from '../../src/common/errors/api-error';
import { SearchGate } from '../../src/common/limits/search-gate';
import type { appConfig } from '../../src/config/app.config';

const gateOf = (maxConcurrent: number, waitMs = 1000) =>
  new SearchGate({ search: { maxConcurrent, waitMs } } as ConfigType<typeof appConfig>);

/** A search that runs until `finish` is called. */
function heldSearch() {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  let started = false;
  const read = () => {
    started = true;
    return done;
  };
  return { read, finish, fail, started: () => started };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

async function busyError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('SearchGate', () => {
  it('runs at most its number of searches at once; the next starts when one settles, in order', async () => {
    const gate = gateOf(2);
    const searches = Array.from({ length: 4 }, heldSearch);
    const answers = searches.map((search) => gate.run(true, search.read));
    await tick();
    expect(searches.map((s) => s.started())).toEqual([true, true, false, false]);
    searches[1].finish('b');
    expect(await answers[1]).toBe('b');
    await tick();
    expect(searches.map((s) => s.started())).toEqual([true, true, true, false]);
    searches[0].fail(new Error('statement failed'));
    await expect(answers[0]).rejects.toThrow('statement failed');
    await tick();
    expect(searches[3].started()).toBe(true);
    searches[2].finish('c');
    searches[3].finish('d');
    expect(await Promise.all(answers.slice(2))).toEqual(['c', 'd']);
    // Every turn came back: two new searches start at once.
    const next = [heldSearch(), heldSearch()];
    next.forEach((search) => void gate.run(true, search.read));
    await tick();
    expect(next.map((s) => s.started())).toEqual([true, true]);
  });

  it('answers 503 with Retry-After when no turn comes within the wait, and never runs that search', async () => {
    const gate = gateOf(1, 30);
    const running = heldSearch();
    void gate.run(true, running.read);
    const late = heldSearch();
    const error = await busyError(gate.run(true, late.read));
    expect(error.key).toBe('rest_search_busy');
    expect(error.status).toBe(503);
    expect(error.details.headers).toEqual({ 'Retry-After': '1' });
    running.finish('done');
    await tick();
    expect(late.started()).toBe(false);
    // The search that gave up left no place in the queue behind: the turn is free.
    const after = heldSearch();
    void gate.run(true, after.read);
    await tick();
    expect(after.started()).toBe(true);
  });

  it('refuses at once when eight searches per turn wait already', async () => {
    const gate = gateOf(1, 60_000);
    const running = heldSearch();
    void gate.run(true, running.read);
    const queued = Array.from({ length: 8 }, () => gate.run(true, () => Promise.resolve('q')));
    const started = Date.now();
    expect((await busyError(gate.run(true, () => Promise.resolve('x')))).key).toBe(
      'rest_search_busy',
    );
    expect(Date.now() - started).toBeLessThan(1000);
    running.finish('r');
    expect(await Promise.all(queued)).toEqual(Array(8).fill('q'));
  });

  it("lets a patient search (a begun feed's batch) wait past the wait and a full queue, for its turn", async () => {
    const gate = gateOf(1, 20);
    const running = heldSearch();
    void gate.run(true, running.read);
    const queued = Array.from({ length: 8 }, () =>
      gate.run(true, () => Promise.resolve('q')).catch((e: ApiError) => e.key),
    );
    const patient = heldSearch();
    const answer = gate.run(true, patient.read, { patient: true });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await Promise.all(queued)).toEqual(Array(8).fill('rest_search_busy'));
    expect(patient.started()).toBe(false);
    running.finish('r');
    await tick();
    expect(patient.started()).toBe(true);
    patient.finish('batch');
    expect(await answer).toBe('batch');
  });

  it('never holds back what is not a search, nor anything with the bound off (0)', async () => {
    const gate = gateOf(1);
    void gate.run(true, heldSearch().read);
    expect(await gate.run(false, () => Promise.resolve('list'))).toBe('list');
    const unbounded = gateOf(0);
    const searches = Array.from({ length: 20 }, heldSearch);
    searches.forEach((search) => void unbounded.run(true, search.read));
    await tick();
    expect(searches.every((s) => s.started())).toBe(true);
  });
});
