import { PeriodicTask } from '../../src/common/time/periodic-task';

describe('PeriodicTask', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs after the first delay, then every interval; stop() ends it', async () => {
    const work = jest.fn(() => Promise.resolve());
    const task = new PeriodicTask(work, () => undefined);
    task.start(1000, 5000);
    await jest.advanceTimersByTimeAsync(999);
    expect(work).toHaveBeenCalledTimes(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(work).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(5000);
    expect(work).toHaveBeenCalledTimes(2);
    await task.stop();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(work).toHaveBeenCalledTimes(2);
  });

  it('runs at once with a first delay of 0', () => {
    const work = jest.fn(() => Promise.resolve());
    new PeriodicTask(work, () => undefined).start(0, 5000);
    expect(work).toHaveBeenCalledTimes(1);
  });

  it('never overlaps runs, hands failures over, and stop() waits for the run in progress', async () => {
    let finish: () => void = () => undefined;
    const work = jest.fn(
      () =>
        new Promise<void>(
          (resolve, reject) =>
            (finish = work.mock.calls.length > 1 ? () => reject(new Error('boom')) : resolve),
        ),
    );
    const failures: unknown[] = [];
    const task = new PeriodicTask(work, (error) => failures.push(error));
    task.start(0, 1000);
    await jest.advanceTimersByTimeAsync(3000);
    expect(work).toHaveBeenCalledTimes(1);
    finish();
    await jest.advanceTimersByTimeAsync(1000);
    expect(work).toHaveBeenCalledTimes(2);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(failures).toEqual([new Error('boom')]);
  });
});
