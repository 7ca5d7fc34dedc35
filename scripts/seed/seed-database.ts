import type { DataSource, QueryRunner } from 'typeorm';
import { backfillChanges } from '../../src/changes/change-backfill';
import { BulkInserter, Engine } from './bulk-insert';
import { eventRows } from './generators/events';
import { organizerRows } from './generators/organizers';
import { seriesRows } from './generators/series';
import { termRows } from './generators/terms';
import { venueRows } from './generators/venues';
import { SeedPlan } from './plan';
import { DELETE_ORDER, TableSpec, TABLES } from './schema';

export interface SeedOptions {
  /** Events per transaction (their translations and links go with them). */
  batchEvents?: number;
  /** Rows per INSERT statement at most. */
  rowsPerStatement?: number;
  /** Progress lines; silent when absent. */
  log?: (line: string) => void;
}

export interface SeedResult {
  /** Rows written per table. */
  counts: Record<string, number>;
  rows: number;
  seconds: number;
}

const ALL_TABLES: TableSpec[] = DELETE_ORDER.map((key) => TABLES[key]);

function engineOf(dataSource: DataSource): Engine {
  return dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
}

/** The seed's tables that hold rows already. */
export async function nonEmptyTables(dataSource: DataSource): Promise<string[]> {
  const found: string[] = [];
  for (const table of ALL_TABLES) {
    const name = dataSource.driver.escape(table.name);
    const rows: unknown[] = await dataSource.query(`SELECT 1 FROM ${name} LIMIT 1`);
    if (rows.length > 0) found.push(table.name);
  }
  return found;
}

/** Empties the seed's tables (children first) and restarts their IDs. */
export async function emptyTables(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  const mysql = engineOf(dataSource) === 'mysql';
  try {
    // Session settings: on one connection.
    await runner.query(mysql ? 'SET foreign_key_checks = 0' : 'PRAGMA foreign_keys = OFF');
    // TRUNCATE rebuilds the full-text index: without stop words, as the migration built it.
    if (mysql) await runner.query('SET SESSION innodb_ft_enable_stopword = OFF');
    for (const table of ALL_TABLES) {
      const name = dataSource.driver.escape(table.name);
      await runner.query(mysql ? `TRUNCATE TABLE ${name}` : `DELETE FROM ${name}`);
    }
    if (!mysql) {
      const names = ALL_TABLES.map((t) => `'${t.name}'`).join(', ');
      await runner
        .query(`DELETE FROM sqlite_sequence WHERE name IN (${names})`)
        .catch(() => undefined);
    }
    await bumpDataVersion(runner);
  } finally {
    await runner
      .query(
        mysql
          ? 'SET foreign_key_checks = 1, innodb_ft_enable_stopword = ON'
          : 'PRAGMA foreign_keys = ON',
      )
      .finally(() => runner.release());
  }
}

/**
 * Writes the plan's terms, venues, organizers and events (with both
 * translations and their links) into empty tables, on one connection with
 * the checks a bulk load can skip turned off, one transaction per batch.
 * Finally sets the terms' published counts, gives every record its place in
 * the changes feed and bumps the data version, so a running service drops its
 * cached totals.
 */
export async function seedDatabase(
  dataSource: DataSource,
  plan: SeedPlan,
  options: SeedOptions = {},
): Promise<SeedResult> {
  const log = options.log ?? (() => undefined);
  const batchEvents = Math.max(1, options.batchEvents ?? 5000);
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;

  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const insert = new BulkInserter(runner, options.rowsPerStatement);
  const restore = await loadSettings(runner, insert.engine);
  const total = () => [...insert.written.values()].reduce((a, b) => a + b, 0);
  const inTransaction = async (work: () => Promise<void>) => {
    await runner.startTransaction();
    try {
      await work();
      await runner.commitTransaction();
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
  };
  try {
    const terms = termRows(plan);
    await inTransaction(async () => {
      await insert.insert(TABLES.terms, terms.terms);
      await insert.insert(TABLES.termTranslations, terms.translations);
    });
    log(`terms       ${plan.categories} categories, ${plan.tags} tags`);

    const batch = Math.max(batchEvents, 1000);
    for (let from = 1; from <= plan.venues; from += batch) {
      const rows = venueRows(plan, from, Math.min(plan.venues, from + batch - 1));
      await inTransaction(async () => {
        await insert.insert(TABLES.venues, rows.venues);
        await insert.insert(TABLES.venueTranslations, rows.translations);
      });
    }
    log(`venues      ${plan.venues}  (${elapsed().toFixed(1)} s)`);
    for (let from = 1; from <= plan.organizers; from += batch) {
      const rows = organizerRows(plan, from, Math.min(plan.organizers, from + batch - 1));
      await inTransaction(async () => {
        await insert.insert(TABLES.organizers, rows.organizers);
        await insert.insert(TABLES.organizerTranslations, rows.translations);
      });
    }
    log(`organizers  ${plan.organizers}  (${elapsed().toFixed(1)} s)`);

    const publishedTerms = new Int32Array(plan.categories + plan.tags + 1);
    let lastLog = elapsed();
    for (let from = 1; from <= plan.events; from += batchEvents) {
      const to = Math.min(plan.events, from + batchEvents - 1);
      const rows = eventRows(plan, from, to, publishedTerms);
      await inTransaction(async () => {
        await insert.insert(TABLES.events, rows.events);
        await insert.insert(TABLES.eventTranslations, rows.translations);
        await insert.insert(TABLES.eventTerms, rows.terms);
        await insert.insert(TABLES.eventOrganizers, rows.organizers);
      });
      const now = elapsed();
      if (to === plan.events || now - lastLog >= 5) {
        lastLog = now;
        const percent = ((to / plan.events) * 100).toFixed(0).padStart(3);
        log(
          `events      ${to}/${plan.events} ${percent} %  ${now.toFixed(1)} s  ` +
            `${Math.round(total() / now)} rows/s`,
        );
      }
    }

    // Series after the one-off events, each followed by its occurrences, about batchEvents rows a transaction.
    let nextId = plan.events + 1;
    let occurrences = 0;
    for (let from = 1, to = 0; from <= plan.series; from = to + 1) {
      const rows = seriesRows(plan, from, plan.series, nextId, publishedTerms, batchEvents);
      to = from + rows.series - 1;
      nextId = rows.nextId;
      occurrences += rows.events.length - rows.series;
      await inTransaction(async () => {
        await insert.insert(TABLES.seriesEvents, rows.events);
        await insert.insert(TABLES.eventTranslations, rows.translations);
        await insert.insert(TABLES.eventTerms, rows.terms);
        await insert.insert(TABLES.eventOrganizers, rows.organizers);
      });
      const now = elapsed();
      if (to === plan.series || now - lastLog >= 5) {
        lastLog = now;
        const percent = ((to / plan.series) * 100).toFixed(0).padStart(3);
        log(
          `series      ${to}/${plan.series} ${percent} %  ${occurrences} occurrences  ${now.toFixed(1)} s  ` +
            `${Math.round(total() / now)} rows/s`,
        );
      }
    }

    await inTransaction(async () => {
      for (let id = 1; id < publishedTerms.length; id++) {
        if (publishedTerms[id] === 0) continue;
        await runner.query('UPDATE terms SET published_count = ? WHERE id = ?', [
          publishedTerms[id],
          id,
        ]);
      }
      // Every seeded record in the changes feed; cursors from before the load expire.
      await backfillChanges(runner);
      await bumpDataVersion(runner);
    });
  } finally {
    await restore().finally(() => runner.release());
  }

  if (insert.engine === 'mysql') {
    // Fresh index statistics for the planner after a bulk load.
    const names = ALL_TABLES.map((t) => dataSource.driver.escape(t.name)).join(', ');
    await dataSource.query(`ANALYZE TABLE ${names}`);
  } else {
    await dataSource.query('PRAGMA wal_checkpoint(TRUNCATE)').catch(() => undefined);
  }

  const counts = Object.fromEntries(
    ALL_TABLES.map((t) => [t.name, insert.written.get(t.name) ?? 0]),
  );
  return { counts, rows: total(), seconds: elapsed() };
}

/**
 * Session settings for the load; returns what restores them. MySQL: no
 * unique or foreign key checks on this connection (the generator guarantees
 * both). SQLite: no foreign key checks, no fsync per commit, a larger page cache.
 */
async function loadSettings(runner: QueryRunner, engine: Engine): Promise<() => Promise<void>> {
  if (engine === 'mysql') {
    await runner.query('SET SESSION unique_checks = 0');
    await runner.query('SET SESSION foreign_key_checks = 0');
    return async () => {
      await runner.query('SET SESSION foreign_key_checks = 1');
      await runner.query('SET SESSION unique_checks = 1');
    };
  }
  const pragma = async (name: string): Promise<unknown> => {
    const rows: Array<Record<string, unknown>> = await runner.query(`PRAGMA ${name}`);
    return rows[0]?.[name];
  };
  const synchronous = Number(await pragma('synchronous'));
  const cacheSize = Number(await pragma('cache_size'));
  await runner.query('PRAGMA foreign_keys = OFF');
  await runner.query('PRAGMA synchronous = OFF');
  await runner.query('PRAGMA cache_size = -262144');
  return async () => {
    await runner.query(`PRAGMA cache_size = ${Number.isFinite(cacheSize) ? cacheSize : -2000}`);
    await runner.query(`PRAGMA synchronous = ${Number.isFinite(synchronous) ? synchronous : 2}`);
    await runner.query('PRAGMA foreign_keys = ON');
  };
}

async function bumpDataVersion(runner: QueryRunner): Promise<void> {
  await runner.query('UPDATE data_version SET version = version + 1 WHERE id = 1');
}
