import type { EntityManager } from 'typeorm';
import { EVENT_TEXTS, textEngine, textMatchCountSql, textQuery } from '../database/full-text';
import type { SearchPlan } from './event-list-query';

/**
 * SQLite reads a search along the window's index (`window`) when its texts
 * match at least one event in WINDOW_ENTRIES_PER_MATCH of the window: then
 * walking the window's index entries in order costs less than reading each
 * matched event by rowid at random (`matches`). Measured at 100k events
 * (docs/performance.md "Search").
 */
const WINDOW_ENTRIES_PER_MATCH = 10;

/** Up to this many matched texts, reading them by rowid costs about a millisecond whatever the window. */
const FEW_MATCHES = 200;

/**
 * The plan of a new search (`eventListQuery`'s `searchPlan`). MySQL/MariaDB:
 * always `matches` (InnoDB pays per match either way). SQLite: by the FTS5
 * match count (cheap: the index alone) against the number of events the
 * list's other filters leave (`windowSize`, a total the count cache keeps),
 * asked only when neither a few matches nor the whole table decides it.
 */
export async function chooseSearchPlan(
  manager: EntityManager,
  words: readonly string[],
  windowSize: () => Promise<number>,
): Promise<SearchPlan> {
  if (textEngine(manager.connection) === 'mysql') return 'matches';
  const [{ n }] = await manager.query<Array<{ n: number }>>(textMatchCountSql(EVENT_TEXTS), [
    textQuery('sqlite', words),
  ]);
  if (Number(n) <= FEW_MATCHES) return 'matches';
  const matches = Number(n) * WINDOW_ENTRIES_PER_MATCH;
  // No window holds more events than the table (rowids only grow).
  const [{ last }] = await manager.query<Array<{ last: number | null }>>(
    'SELECT MAX(id) AS last FROM events',
  );
  if (matches >= Number(last ?? 0)) return 'window';
  return matches >= (await windowSize()) ? 'window' : 'matches';
}
