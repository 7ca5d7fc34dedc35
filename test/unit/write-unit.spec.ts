import type { DataSource, EntityManager } from 'typeorm';
import type { ConfigType } from '@nestjs/config';
import { VersionBumps } from '../../src/common/cache/version-bumps';
import type { WriteClaim } from '../../src/common/http/write-request';
import type { appConfig } from '../../src/config/app.config';
import { BatchTransaction } from '../../src/writes/batch-transaction';
import { ChangeTracker, type TrackedChange } from '../../src/writes/change-tracker';
import { DeferredRows, KeptRows, TransactionRead, WriteUnit } from '../../src/writes/write-unit';
import { Writes } from '../../src/writes/writes.service';

/** A MySQL-like data source whose transactions and statements are written to `log`. */
function fakeDatabase(log: string[], failFirstAttempts = 0) {
  let attempts = 0;
  const managers: EntityManager[] = [];
  const dataSource = {
    options: { type: 'mysql' },
    transaction: async (run: (manager: EntityManager) => Promise<unknown>) => {
      attempts++;
      const manager = {
        connection: { options: { type: 'mysql' } },
        query: (sql: string, params: unknown[] = []) => {
          log.push(sql.split(' ').slice(0, 2).join(' '));
          return Promise.resolve(
            sql.startsWith('UPDATE change_state') ? { insertId: 100 + Number(params[0]) } : [],
          );
        },
        // A transaction inside this one: a savepoint on the same connection.
        transaction: async (nested: (same: EntityManager) => Promise<unknown>) => {
          log.push('SAVEPOINT');
          try {
            const result = await nested(manager);
            log.push('RELEASE SAVEPOINT');
            return result;
          } catch (error) {
            log.push('ROLLBACK TO SAVEPOINT');
            throw error;
          }
        },
      } as unknown as EntityManager;
      managers.push(manager);
      log.push('BEGIN');
      try {
        const result = await run(manager);
        if (attempts <= failFirstAttempts) {
          throw Object.assign(new Error('deadlock'), { code: 'ER_LOCK_DEADLOCK' });
        }
        log.push('COMMIT');
        return result;
      } catch (error) {
        log.push('ROLLBACK');
        throw error;
      }
    },
  } as unknown as DataSource;
  return { dataSource, managers };
}

const config = { portableSql: false } as ConfigType<typeof appConfig>;

function pipeline(log: string[], failFirstAttempts = 0) {
  const { dataSource, managers } = fakeDatabase(log, failFirstAttempts);
  const tracker = new ChangeTracker(config);
  return { writes: new Writes(dataSource, tracker), tracker, managers };
}

function claim(log: string[], active = true): WriteClaim {
  return {
    active,
    markCommitted: () => {
      log.push('claim committed');
      return Promise.resolve();
    },
  };
}

const created = (id: number): TrackedChange => ({ kind: 'event', id, action: 'created' });

describe('WriteUnit', () => {
  const manager = {} as EntityManager;

  it('merges what was recorded into one change per record', () => {
    const unit = new WriteUnit(manager);
    unit.record([created(1), { kind: 'tag', id: 2, action: 'updated' }]);
    unit.record([
      { kind: 'event', id: 1, action: 'updated' },
      { kind: 'tag', id: 2, action: 'deleted', permanent: true },
    ]);
    expect(unit.changes()).toEqual([
      created(1),
      { kind: 'tag', id: 2, action: 'deleted', permanent: true },
    ]);
  });

  it('gives kept rows back by slot until a change is recorded after them', () => {
    const rows = new KeptRows<number[]>('rows');
    const other = new KeptRows<string>('other');
    const unit = new WriteUnit(manager);
    unit.record([created(1)]);
    unit.keep(rows, [1, 2]);
    expect(unit.keptRows(rows)).toEqual([1, 2]);
    expect(unit.keptRows(other)).toBeUndefined();
    unit.record([]);
    expect(unit.keptRows(rows)).toEqual([1, 2]);
    unit.record([created(3)]);
    expect(unit.keptRows(rows)).toBeUndefined();
    expect(new WriteUnit(manager).keptRows(rows)).toBeUndefined();
  });

  it('runs after-commit work once, in order, and a failing piece does not stop the rest', () => {
    const unit = new WriteUnit(manager);
    const ran: string[] = [];
    unit.afterCommit(() => ran.push('first'));
    unit.afterCommit(() => {
      throw new Error('broken');
    });
    unit.afterCommit(() => ran.push('third'));
    unit.runCommitted();
    unit.runCommitted();
    expect(ran).toEqual(['first', 'third']);
  });
});

describe('Writes (the commit pipeline)', () => {
  it('runs the work, the listeners, the claim, the numbering, COMMIT, then the after-commit work, in that order', async () => {
    const log: string[] = [];
    const { writes, tracker } = pipeline(log);
    const bumps = new VersionBumps();
    const report = bumps.committedWithBump.bind(bumps);
    jest.spyOn(bumps, 'committedWithBump').mockImplementation(() => {
      log.push('bump reported');
      report();
    });
    const heard: TrackedChange[][] = [];
    tracker.subscribe({
      onChanges: (unit, changes) => {
        heard.push([...changes]);
        log.push('listener');
        expect(unit.request?.bumps).toBe(bumps);
        return Promise.resolve();
      },
    });
    tracker.onCommitted((numbered) => log.push(`feed ${numbered.map((c) => c.seq).join(',')}`));
    const answer = await writes.run({ claim: claim(log), bumps }, (unit) => {
      log.push('work');
      unit.record([created(7), created(8), { kind: 'event', id: 7, action: 'updated' }]);
      unit.afterCommit(() => log.push('deliveries taken'));
      return Promise.resolve('answer');
    });
    expect(answer).toBe('answer');
    expect(heard).toEqual([[created(7), created(8)]]);
    expect(log).toEqual([
      'BEGIN',
      'work',
      'listener',
      'claim committed',
      'UPDATE change_state',
      'INSERT INTO',
      'COMMIT',
      'bump reported',
      'feed 101,102',
      'deliveries taken',
    ]);
    expect(bumps.owed(200)).toBe(false);
  });

  it('runs no after-commit work after a ROLLBACK: a failing listener fails the write', async () => {
    const log: string[] = [];
    const { writes, tracker } = pipeline(log);
    const bumps = new VersionBumps();
    tracker.subscribe({ onChanges: () => Promise.reject(new Error('outbox down')) });
    tracker.onCommitted(() => log.push('feed'));
    await expect(
      writes.run({ bumps }, (unit) => {
        unit.record([created(1)]);
        unit.afterCommit(() => log.push('after commit'));
        return Promise.resolve();
      }),
    ).rejects.toThrow('outbox down');
    expect(log).toEqual(['BEGIN', 'ROLLBACK']);
    // Nothing reported: the request still owes the bump after a 5xx.
    expect(bumps.owed(500)).toBe(true);
  });

  it('a write under a claim the request lost rolls back before it takes sequence numbers', async () => {
    const log: string[] = [];
    const { writes } = pipeline(log);
    const lost: WriteClaim = {
      active: true,
      markCommitted: () => Promise.reject(new Error('rest_idempotency_key_in_use')),
    };
    await expect(
      writes.run({ claim: lost }, (unit) => {
        unit.record([created(1)]);
        return Promise.resolve();
      }),
    ).rejects.toThrow('rest_idempotency_key_in_use');
    expect(log).toEqual(['BEGIN', 'ROLLBACK']);
  });

  it('a retry starts with a fresh unit: nothing recorded or queued by the failed attempt survives', async () => {
    const log: string[] = [];
    const { writes, tracker, managers } = pipeline(log, 1);
    const units: WriteUnit[] = [];
    const heard: TrackedChange[][] = [];
    tracker.subscribe({
      onChanges: (_unit, changes) => {
        heard.push([...changes]);
        return Promise.resolve();
      },
    });
    const ran: number[] = [];
    await writes.run(undefined, (unit) => {
      units.push(unit);
      const attempt = units.length;
      unit.record([created(attempt)]);
      unit.afterCommit(() => ran.push(attempt));
      return Promise.resolve();
    });
    expect(units).toHaveLength(2);
    expect(units[0]).not.toBe(units[1]);
    expect(units.map((unit) => unit.manager)).toEqual(managers);
    expect(units[1].changes()).toEqual([created(2)]);
    expect(heard).toEqual([[created(1)], [created(2)]]);
    expect(ran).toEqual([2]);
  });

  it('a write that recorded nothing marks its claim, numbers nothing and leaves the bump to the request', async () => {
    const log: string[] = [];
    const { writes, tracker } = pipeline(log);
    tracker.subscribe({
      onChanges: () => {
        log.push('listener');
        return Promise.resolve();
      },
    });
    const bumps = new VersionBumps();
    await writes.run({ claim: claim(log), bumps }, () => Promise.resolve());
    expect(log).toEqual(['BEGIN', 'claim committed', 'COMMIT']);
    // Even a 4xx after it owes the bump: the write went to COMMIT without one.
    expect(bumps.owed(409)).toBe(true);
  });

  it('with readAhead, the listeners read before the work, on each attempt, and reuse it at announce', async () => {
    const log: string[] = [];
    const { writes, tracker } = pipeline(log, 1);
    const endpoints = new TransactionRead<string[]>('endpoints');
    const read = (unit: WriteUnit) =>
      unit.transactionRead(endpoints, () => {
        log.push('endpoints read');
        return Promise.resolve(['https://example.test/hook']);
      });
    const announced: string[][] = [];
    tracker.subscribe({
      readAhead: async (unit) => {
        await read(unit);
      },
      onChanges: async (unit) => {
        announced.push(await read(unit));
      },
    });
    await writes.run(
      undefined,
      (unit) => {
        log.push('work');
        unit.record([created(1)]);
        return Promise.resolve();
      },
      { readAhead: true },
    );
    // The first attempt deadlocks at COMMIT; the retry's fresh unit reads again.
    expect(log.filter((entry) => ['BEGIN', 'endpoints read', 'work'].includes(entry))).toEqual([
      'BEGIN',
      'endpoints read',
      'work',
      'BEGIN',
      'endpoints read',
      'work',
    ]);
    expect(announced).toEqual([['https://example.test/hook'], ['https://example.test/hook']]);
  });

  it('without readAhead, a listener reads only when the changes are announced', async () => {
    const log: string[] = [];
    const { writes, tracker } = pipeline(log);
    tracker.subscribe({
      readAhead: () => {
        log.push('read ahead');
        return Promise.resolve();
      },
      onChanges: () => {
        log.push('listener');
        return Promise.resolve();
      },
    });
    await writes.run(undefined, (unit) => {
      log.push('work');
      unit.record([created(1)]);
      return Promise.resolve();
    });
    expect(log.slice(0, 3)).toEqual(['BEGIN', 'work', 'listener']);
    expect(log).not.toContain('read ahead');
  });

  it('writes after the request handler returned (an inactive claim) do not mark it', async () => {
    const log: string[] = [];
    const { writes } = pipeline(log);
    await writes.run({ claim: claim(log, false) }, () => Promise.resolve());
    expect(log).toEqual(['BEGIN', 'COMMIT']);
  });

  describe('writes joined to an atomic batch (docs/api.md §18)', () => {
    it('run in the batch transaction, are announced each, and are numbered, bumped and committed once with it', async () => {
      const log: string[] = [];
      const { writes, tracker, managers } = pipeline(log);
      const heard: TrackedChange[][] = [];
      tracker.subscribe({
        onChanges: (unit, changes) => {
          heard.push([...changes]);
          log.push(`listener ${unit.request === undefined ? 'batch' : 'operation'}`);
          return Promise.resolve();
        },
      });
      tracker.onCommitted((numbered) =>
        log.push(`feed ${numbered.map((c) => `${c.id}@${c.seq}`).join(',')}`),
      );
      const batchBumps = new VersionBumps();
      batchBumps.writesNothingItself();
      await writes.run({ claim: claim(log), bumps: batchBumps }, async (batchUnit) => {
        const batch = new BatchTransaction(batchUnit);
        // The operations carry no bumps of their own (WriteVersionInterceptor stays out of them).
        for (const i of [0, 1]) {
          await writes.run({ batch }, (unit) => {
            expect(unit.manager).toBe(batchUnit.manager);
            log.push(`operation ${i}`);
            unit.record([created(1), ...(i === 1 ? [created(2)] : [])]);
            unit.afterCommit(() => log.push(`deliveries ${i}`));
            return Promise.resolve();
          });
          await batch.settle();
        }
      });
      expect(managers).toHaveLength(1);
      expect(heard).toEqual([[created(1)], [created(1), created(2)]]);
      expect(log).toEqual([
        'BEGIN',
        'SAVEPOINT',
        'operation 0',
        'listener operation',
        'RELEASE SAVEPOINT',
        'SAVEPOINT',
        'operation 1',
        'listener operation',
        'RELEASE SAVEPOINT',
        'claim committed',
        'UPDATE change_state',
        'INSERT INTO',
        'COMMIT',
        'feed 1@101,2@102',
        'deliveries 0',
        'deliveries 1',
      ]);
      // The batch's COMMIT bumped with the changes: nothing more is owed.
      expect(batchBumps.owed(200)).toBe(false);
    });

    it('owes a bump after COMMIT only when a joined write recorded no change', async () => {
      const owedAfter = async (joined: number) => {
        const { writes } = pipeline([]);
        const bumps = new VersionBumps();
        bumps.writesNothingItself();
        await writes.run({ bumps }, async (batchUnit) => {
          const batch = new BatchTransaction(batchUnit);
          for (let i = 0; i < joined; i++) await writes.run({ batch }, () => Promise.resolve());
          await batch.settle();
        });
        return bumps.owed(200);
      };
      // A write that recorded nothing may still have written (as alone, it would be bumped).
      expect(await owedAfter(1)).toBe(true);
      // A batch that joined no write changed nothing.
      expect(await owedAfter(0)).toBe(false);
    });

    it('a ROLLBACK of the batch discards every joined write: no numbering, no after-commit work', async () => {
      const log: string[] = [];
      const { writes, tracker } = pipeline(log);
      tracker.onCommitted(() => log.push('feed'));
      await expect(
        writes.run(undefined, async (batchUnit) => {
          const batch = new BatchTransaction(batchUnit);
          await writes.run({ batch }, (unit) => {
            unit.record([created(1)]);
            unit.afterCommit(() => log.push('deliveries'));
            return Promise.resolve();
          });
          throw new Error('operation 2 failed');
        }),
      ).rejects.toThrow('operation 2 failed');
      expect(log).toEqual(['BEGIN', 'SAVEPOINT', 'RELEASE SAVEPOINT', 'ROLLBACK']);
    });

    it('a joined write that fails is rolled back to its savepoint and leaves no change, even when its caller goes on', async () => {
      const log: string[] = [];
      const { writes } = pipeline(log);
      const heard: number[] = [];
      await writes.run(undefined, async (batchUnit) => {
        const batch = new BatchTransaction(batchUnit);
        await writes
          .run({ batch }, (unit) => {
            unit.record([created(1)]);
            unit.afterCommit(() => heard.push(1));
            return Promise.reject(new Error('rest_external_id_taken'));
          })
          .catch(() => undefined);
        await writes.run({ batch }, (unit) => {
          unit.record([created(2)]);
          unit.afterCommit(() => heard.push(2));
          return Promise.resolve();
        });
        await batch.settle();
        expect(batchUnit.changesToNumber()).toEqual([created(2)]);
      });
      expect(heard).toEqual([2]);
      expect(log).toEqual([
        'BEGIN',
        'SAVEPOINT',
        'ROLLBACK TO SAVEPOINT',
        'SAVEPOINT',
        'RELEASE SAVEPOINT',
        'UPDATE change_state',
        'INSERT INTO',
        'COMMIT',
      ]);
    });

    it('a deadlock in a joined write retries the whole batch transaction', async () => {
      const log: string[] = [];
      const { writes } = pipeline(log);
      let attempts = 0;
      await writes.run(undefined, async (batchUnit) => {
        attempts++;
        const batch = new BatchTransaction(batchUnit);
        const joined = writes.run({ batch }, () =>
          attempts === 1
            ? Promise.reject(Object.assign(new Error('deadlock'), { code: 'ER_LOCK_DEADLOCK' }))
            : Promise.resolve(),
        );
        // The operation's route turns the failure into its answer; the batch learns of it here.
        await joined.catch(() => undefined);
        await batch.settle();
      });
      expect(attempts).toBe(2);
      expect(log).toEqual([
        'BEGIN',
        'SAVEPOINT',
        'ROLLBACK TO SAVEPOINT',
        'ROLLBACK',
        'BEGIN',
        'SAVEPOINT',
        'RELEASE SAVEPOINT',
        'COMMIT',
      ]);
    });

    it("writes the joined writes' deferred rows once, in their order, before the claim and the numbering; a rolled-back one's never", async () => {
      const log: string[] = [];
      const { writes } = pipeline(log);
      const slot = new DeferredRows<string>('rows', (unit, rows) => {
        log.push(`rows ${rows.join(',')}`);
        return Promise.resolve();
      });
      await writes.run({ claim: claim(log) }, async (batchUnit) => {
        const batch = new BatchTransaction(batchUnit);
        for (const [i, rows] of [['a', 'b'], ['lost'], ['c']].entries()) {
          await writes
            .run({ batch }, (unit) => {
              unit.record([created(i + 1)]);
              unit.defer(slot, rows);
              return rows[0] === 'lost' ? Promise.reject(new Error('raced')) : Promise.resolve();
            })
            .catch(() => undefined);
        }
        await batch.settle();
      });
      expect(log).toEqual([
        'BEGIN',
        'SAVEPOINT',
        'RELEASE SAVEPOINT',
        'SAVEPOINT',
        'ROLLBACK TO SAVEPOINT',
        'SAVEPOINT',
        'RELEASE SAVEPOINT',
        'rows a,b,c',
        'claim committed',
        'UPDATE change_state',
        'INSERT INTO',
        'COMMIT',
      ]);
    });

    it('a transaction read is made once for the batch and its joined writes, again on a retry', async () => {
      const log: string[] = [];
      const { writes } = pipeline(log, 1);
      const slot = new TransactionRead<number>('endpoints');
      let reads = 0;
      const read = () => Promise.resolve(++reads);
      const seen: number[] = [];
      await writes.run(undefined, async (batchUnit) => {
        const batch = new BatchTransaction(batchUnit);
        for (let i = 0; i < 3; i++)
          await writes.run({ batch }, async (unit) => {
            seen.push(await unit.transactionRead(slot, read));
          });
        seen.push(await batchUnit.transactionRead(slot, read));
        await batch.settle();
      });
      // The first attempt read once, the retry (a fresh unit) once more.
      expect(seen).toEqual([1, 1, 1, 1, 2, 2, 2, 2]);
    });
  });
});
