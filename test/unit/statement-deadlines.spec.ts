import { StatementDeadlines } from '../../src/database/statement-deadlines';

describe('StatementDeadlines', () => {
  let now = 0;
  const clock = () => now;

  beforeEach(() => (now = 1_000));

  it('expires a statement once its deadline has passed, once', () => {
    const deadlines = new StatementDeadlines(100, clock);
    const expired: string[] = [];
    const release = deadlines.watch(500, () => expired.push('a'));
    deadlines.watch(2_000, () => expired.push('b'));
    now += 499;
    deadlines.check();
    expect(expired).toEqual([]);
    now += 1;
    deadlines.check();
    deadlines.check();
    expect(expired).toEqual(['a']);
    expect(deadlines.size).toBe(1);
    release(); // a late release of an expired statement changes nothing
    now += 1_500;
    deadlines.check();
    expect(expired).toEqual(['a', 'b']);
    expect(deadlines.size).toBe(0);
  });

  it('never expires a statement released in time', () => {
    const deadlines = new StatementDeadlines(100, clock);
    const expired: string[] = [];
    const release = deadlines.watch(500, () => expired.push('a'));
    release();
    now += 10_000;
    deadlines.check();
    expect(expired).toEqual([]);
    expect(deadlines.size).toBe(0);
  });

  it('checks with one timer while statements are in flight, and stops it at the first idle check', async () => {
    const intervals = jest.spyOn(global, 'setInterval');
    const cleared = jest.spyOn(global, 'clearInterval');
    try {
      const deadlines = new StatementDeadlines(10);
      const expired: number[] = [];
      for (let i = 0; i < 50; i++) deadlines.watch(20, () => expired.push(i));
      const release = deadlines.watch(60_000, () => expired.push(-1));
      expect(intervals).toHaveBeenCalledTimes(1);
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect(expired).toHaveLength(50);
      expect(cleared).not.toHaveBeenCalled();
      release();
      await new Promise((resolve) => setTimeout(resolve, 40));
      expect(cleared).toHaveBeenCalledTimes(1);
      deadlines.watch(20, () => expired.push(99));
      expect(intervals).toHaveBeenCalledTimes(2);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(expired).toContain(99);
    } finally {
      intervals.mockRestore();
      cleared.mockRestore();
    }
  });
});
