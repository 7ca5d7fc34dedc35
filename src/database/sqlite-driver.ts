/**
 * The better-sqlite3 build for the running Node (docs/decisions.md):
 * - Node 20 needs the 12.x line (13.x crashes there: it is built for Node ≥ 22);
 * - Node ≥ 22 gets 13.x, installed under the alias `better-sqlite3-node22`,
 *   because 12.x aborts the process on Node 24 (`RemoveEnvironmentCleanupHook`
 *   assertion when a statement is garbage-collected).
 * Both have the same API; TypeORM takes the module through its `driver` option.
 */
export function loadSqliteDriver(nodeVersion = process.versions.node): unknown {
  const major = Number(nodeVersion.split('.')[0]);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return major >= 22 ? require('better-sqlite3-node22') : require('better-sqlite3');
}
