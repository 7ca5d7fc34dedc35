import { leanMysqlQuery } from './mysql-query';

/** The property a pooled connection keeps its promise wrapper in. */
const WRAPPER = Symbol('promise wrapper');
/** Marks the prototype whose `promise()` keeps wrappers. */
const KEEPS = Symbol('keeps promise wrappers');

interface PoolConnectionClass {
  prototype: { promise(this: PooledConnection, promiseImpl?: PromiseConstructor): unknown };
}

interface PooledConnection {
  [WRAPPER]?: unknown;
}

/**
 * mysql2 for TypeORM (its `driver` option), with one promise wrapper per
 * pooled connection. TypeORM's MysqlQueryRunner calls `connection.promise()`
 * for every statement, and mysql2 answers each call with a new
 * PromisePoolConnection: a `require` of its module and an EventEmitter with
 * its forwarded events, about 3 % of a create's CPU (docs/performance.md,
 * Writes). The wrapper holds no state of its own (each query makes its own
 * promise, its listeners are only its own), so one per connection serves
 * every statement; a call with another Promise implementation still gets a new one.
 * Statements themselves skip the wrapper: TypeORM's runner sends them through
 * `leanMysqlQuery` (mysql-query.ts).
 */
export function loadMysqlDriver(): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mysql2 = require('mysql2') as { PoolConnection: PoolConnectionClass };
  keepPromiseWrappers(mysql2.PoolConnection);
  leanMysqlQuery();
  return mysql2;
}

/** Makes `promise()` of `PoolConnection` answer the same wrapper for one connection (idempotent). */
export function keepPromiseWrappers(PoolConnection: PoolConnectionClass): void {
  const proto = PoolConnection.prototype as PoolConnectionClass['prototype'] & {
    [KEEPS]?: true;
  };
  if (proto[KEEPS]) return;
  const wrap = proto.promise;
  proto.promise = function (this: PooledConnection, promiseImpl?: PromiseConstructor) {
    if (promiseImpl !== undefined) return wrap.call(this, promiseImpl);
    return (this[WRAPPER] ??= wrap.call(this));
  };
  proto[KEEPS] = true;
}
