import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { streamTo } from '../../src/ical/ical-response';

/** A response whose socket buffer is "full" until the test emits `drain`. */
class FakeResponse extends EventEmitter {
  written: string[] = [];
  ended = false;
  destroyed = false;
  full = false;

  write(chunk: string): boolean {
    this.written.push(chunk);
    return !this.full;
  }

  end(): void {
    this.ended = true;
    this.emit('close');
  }

  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

/** Pieces "read from the database": counts how many were asked for. */
function source(count: number) {
  const state = { pulled: 0, finished: false };
  async function* pieces() {
    try {
      for (let i = 0; i < count; i++) {
        state.pulled++;
        yield `piece ${i}\n`;
      }
    } finally {
      state.finished = true;
    }
  }
  return { state, pieces: pieces() };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('streamTo', () => {
  it('writes every piece and ends', async () => {
    const res = new FakeResponse();
    const { state, pieces } = source(5);
    streamTo(res as unknown as Response, pieces, () => undefined);
    for (let i = 0; i < 10; i++) await tick();
    expect(res.written).toHaveLength(5);
    expect(res.ended).toBe(true);
    expect(state.finished).toBe(true);
  });

  it('waits for drain when write returns false (backpressure)', async () => {
    const res = new FakeResponse();
    res.full = true;
    const { state, pieces } = source(5);
    streamTo(res as unknown as Response, pieces, () => undefined);
    for (let i = 0; i < 10; i++) await tick();
    expect(state.pulled).toBe(1);
    res.full = false;
    res.emit('drain');
    for (let i = 0; i < 10; i++) await tick();
    expect(res.written).toHaveLength(5);
    expect(res.ended).toBe(true);
  });

  it('stops reading when the client goes away', async () => {
    const res = new FakeResponse();
    res.full = true;
    const { state, pieces } = source(1000);
    streamTo(res as unknown as Response, pieces, () => undefined);
    for (let i = 0; i < 10; i++) await tick();
    res.emit('close');
    for (let i = 0; i < 10; i++) await tick();
    expect(state.pulled).toBe(1);
    expect(state.finished).toBe(true);
    expect(res.ended).toBe(false);
  });

  it('destroys the connection when reading fails after the headers went out', async () => {
    const res = new FakeResponse();
    const errors: Error[] = [];
    async function* failing() {
      yield 'head\n';
      throw new Error('database gone');
    }
    streamTo(res as unknown as Response, failing(), (error) => errors.push(error));
    for (let i = 0; i < 10; i++) await tick();
    expect(res.written).toEqual(['head\n']);
    expect(res.destroyed).toBe(true);
    expect(res.ended).toBe(false);
    expect(errors.map((e) => e.message)).toEqual(['database gone']);
  });
});
