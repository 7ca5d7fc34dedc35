import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import type { PageWindow } from '../common/pagination/list-page';
import { committedRead, writeTransaction } from '../database/write-transaction';
import { CATEGORIES } from '../terms/taxonomies';
import { ImportRun } from './entities/import-run.entity';
import { ImportSource, type RunOutcome } from './entities/import-source.entity';

/** Runs kept per import: older reports are deleted when a run is recorded. */
export const RUNS_KEPT = 50;
/** A claimed run older than this is taken to have died with its instance. */
export const STALE_RUN_MS = 30 * 60_000;

/** What a finished run changes on its import. */
export interface RunEnd {
  run: Omit<ImportRun, 'id'>;
  /** The feed's validators after the run (kept as they were when undefined). */
  etag?: string | null;
  lastModified?: string | null;
  /** The claim the run was made under (scheduled runs), or undefined. */
  claimedAtMs?: number;
}

const SUCCESS: ReadonlySet<RunOutcome> = new Set(['imported', 'not_modified']);

/** The SQL of imports and their runs, in one place. */
@Injectable()
export class ImportStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, row: Omit<ImportSource, 'id'>): Promise<ImportSource> {
    const created = manager.create(ImportSource, row);
    await manager.insert(ImportSource, created);
    return created;
  }

  /** Another URL import holds this source (checked in the creating transaction). */
  async feedSourceTaken(manager: EntityManager, source: string): Promise<boolean> {
    return (await manager.countBy(ImportSource, { feedSource: source })) > 0;
  }

  /** The IDs among `ids` that are categories. */
  async categoryIds(ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows: Array<{ id: number | string }> = await this.dataSource
      .createQueryBuilder()
      .select('t.id', 'id')
      .from('terms', 't')
      .where('t.taxonomy = :taxonomy', { taxonomy: CATEGORIES.taxonomy })
      .andWhere('t.id IN (:...ids)', { ids })
      .getRawMany();
    return new Set(rows.map((row) => Number(row.id)));
  }

  find(id: number): Promise<ImportSource | null> {
    return this.dataSource.getRepository(ImportSource).findOneBy({ id });
  }

  list(window: PageWindow): Promise<[ImportSource[], number]> {
    return this.dataSource.getRepository(ImportSource).findAndCount({
      order: { id: 'ASC' },
      skip: window.offset,
      take: window.perPage,
    });
  }

  /** An import's last runs, newest first (idx_import_runs_import). */
  lastRuns(importId: number, limit: number): Promise<ImportRun[]> {
    return this.dataSource
      .getRepository(ImportRun)
      .find({ where: { importId }, order: { id: 'DESC' }, take: limit });
  }

  async remove(manager: EntityManager, id: number): Promise<void> {
    await manager.delete(ImportRun, { importId: id });
    await manager.delete(ImportSource, { id });
  }

  /** Imports whose next run is due at `nowMs`, the longest due first (idx_imports_due). */
  dueIds(nowMs: number, limit: number): Promise<number[]> {
    return committedRead(this.dataSource, async () => {
      const rows: Array<{ id: number | string }> = await this.dataSource
        .createQueryBuilder()
        .select('i.id', 'id')
        .from('imports', 'i')
        .where('i.next_run_ms <= :nowMs', { nowMs })
        .orderBy('i.next_run_ms', 'ASC')
        .limit(limit)
        .getRawMany();
      return rows.map((row) => Number(row.id));
    });
  }

  /**
   * Claims one due run for this instance: one conditional UPDATE moves the
   * next run on by the refresh and marks the run started, unless another
   * instance did so first (the next run is no longer due) or is still running
   * one (a claim younger than STALE_RUN_MS). True when this call claimed it.
   */
  async claim(id: number, nowMs: number): Promise<boolean> {
    const result = await writeTransaction(this.dataSource, (manager) =>
      manager
        .createQueryBuilder()
        .update(ImportSource)
        .set({
          nextRunMs: () => ':nowMs + refresh_seconds * 1000',
          runningSinceMs: nowMs,
        })
        .where('id = :id AND next_run_ms <= :nowMs', { id, nowMs })
        .andWhere('(running_since_ms IS NULL OR running_since_ms < :stale)', {
          stale: nowMs - STALE_RUN_MS,
        })
        .setParameter('nowMs', nowMs)
        .execute(),
    );
    return result.affected === 1;
  }

  /**
   * Records a run with its report and its end on the import, in one
   * transaction, and forgets the reports past the RUNS_KEPT newest. A
   * scheduled run releases its claim only if it still holds it. Nothing is
   * recorded for an import deleted meanwhile.
   */
  async recordRun(importId: number, end: RunEnd): Promise<ImportRun | undefined> {
    return writeTransaction(this.dataSource, async (manager) => {
      const source = await manager.findOne(ImportSource, {
        where: { id: importId },
        select: { id: true },
      });
      if (!source) return undefined;
      const run = manager.create(ImportRun, end.run);
      await manager.insert(ImportRun, run);
      const changes: Partial<ImportSource> = {
        lastRunMs: end.run.finishedMs,
        lastOutcome: end.run.outcome,
      };
      if (SUCCESS.has(end.run.outcome)) changes.lastSuccessMs = end.run.finishedMs;
      if (end.etag !== undefined) changes.etag = end.etag;
      if (end.lastModified !== undefined) changes.lastModified = end.lastModified;
      await manager.update(ImportSource, { id: importId }, changes);
      if (end.claimedAtMs !== undefined) {
        await manager.update(
          ImportSource,
          { id: importId, runningSinceMs: end.claimedAtMs },
          { runningSinceMs: null },
        );
      }
      await this.pruneRuns(manager, importId);
      return run;
    });
  }

  private async pruneRuns(manager: EntityManager, importId: number): Promise<void> {
    const oldestKept = await manager.find(ImportRun, {
      where: { importId },
      select: { id: true },
      order: { id: 'DESC' },
      skip: RUNS_KEPT - 1,
      take: 1,
    });
    if (oldestKept.length === 0) return;
    await manager
      .createQueryBuilder()
      .delete()
      .from(ImportRun)
      .where('import_id = :importId AND id < :id', { importId, id: oldestKept[0].id })
      .execute();
  }

  /** Several imports by ID (the scheduler's reads). */
  findMany(ids: number[]): Promise<ImportSource[]> {
    return this.dataSource.getRepository(ImportSource).findBy({ id: In(ids) });
  }
}
