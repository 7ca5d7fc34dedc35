import { callgrindTotal, instructionVerdict, relativeSpread } from '../../scripts/bench/callgrind';
import { countedPerRequest } from '../../scripts/bench/obs-instructions';

describe('bench callgrind helpers', () => {
  // The head and tail of a real dump (callgrind 3.x, `callgrind_control -d`).
  const dump = [
    '# callgrind format',
    'version: 1',
    'creator: callgrind-3.19.0',
    'pid: 4242',
    'cmd:  /usr/bin/node dist/main.js',
    'part: 2',
    '',
    'desc: Trigger: Client Request: dump',
    '',
    'positions: line',
    'events: Ir',
    'summary: 1234567890',
    '',
    'ob=(1) /usr/bin/node',
    'fn=(1) main',
    '0 15',
    '',
    'totals: 1234567890',
  ].join('\n');

  it('reads the total Ir of a dump', () => {
    expect(callgrindTotal(dump)).toBe(1234567890);
  });

  it('picks Ir among several events and falls back to summary', () => {
    const several = 'events: Dr Ir Dw\nsummary: 7 900 3\n';
    expect(callgrindTotal(several)).toBe(900);
  });

  it('refuses a dump without totals or Ir', () => {
    expect(() => callgrindTotal('events: Ir\n')).toThrow('no totals or summary');
    expect(() => callgrindTotal('events: Dr\ntotals: 5\n')).toThrow('no Ir event');
  });

  it('decides a target against the reference processes', () => {
    const reference = [1000, 1004];
    // 1000 × 1.03 = 1030: a variant up to there is within 3 % of even the cheapest reference.
    expect(instructionVerdict([1020, 1030], reference, 0.03)).toBe('met');
    // Above 1004 × 1.03 = 1034.12 in every process: missed.
    expect(instructionVerdict([1035, 1040], reference, 0.03)).toBe('missed');
    // Between: the reference's own spread blurs it.
    expect(instructionVerdict([1025, 1033], reference, 0.03)).toBe('undecided');
    expect(() => instructionVerdict([], reference, 0.03)).toThrow('no figures');
  });

  it('gives the relative spread of fresh processes', () => {
    expect(relativeSpread([1000, 1004, 1002])).toBeCloseTo(0.004, 10);
  });
});

describe('bench:obs --instructions, a figure as a real deployment counts it', () => {
  const options = { scrapeEvery: 15_000, realRps: 1_000, requests: 200 };

  it("takes the slow window's timer work out and shares one real second of it over realRps requests", () => {
    // 200 requests took 60 s under valgrind; timers cost 1 M Ir a second idle.
    const figure = {
      mode: 'metrics',
      index: 1,
      perRequest: 20_000_000,
      windowSeconds: 60,
      idlePerSecond: 1_000_000,
    };
    expect(countedPerRequest(figure, options)).toBe(20_000_000 - 300_000 + 1_000);
  });

  it('adds one scrape per scrapeEvery requests', () => {
    const figure = {
      mode: 'metrics',
      index: 1,
      perRequest: 1_000_000,
      windowSeconds: 0,
      idlePerSecond: 0,
      perScrape: 15_000_000,
    };
    expect(countedPerRequest(figure, options)).toBe(1_001_000);
  });

  it('leaves a process without timer work or scrapes as counted', () => {
    const figure = {
      mode: 'off',
      index: 1,
      perRequest: 19_000_000,
      windowSeconds: 55,
      idlePerSecond: 0,
    };
    expect(countedPerRequest(figure, options)).toBe(19_000_000);
  });
});
