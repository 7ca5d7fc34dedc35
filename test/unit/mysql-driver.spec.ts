import { keepPromiseWrappers, loadMysqlDriver } from '../../src/database/mysql-driver';

class FakeConnection {
  made = 0;
  promise(promiseImpl?: PromiseConstructor): { connection: FakeConnection; impl?: PromiseConstructor } {
    this.made++;
    return { connection: this, impl: promiseImpl };
  }
}

describe('keepPromiseWrappers', () => {
  it('answers one wrapper per connection, made on first use', () => {
    keepPromiseWrappers(FakeConnection);
    keepPromiseWrappers(FakeConnection); // idempotent: not wrapped twice
    const [a, b] = [new FakeConnection(), new FakeConnection()];
    const first = a.promise();
    expect(a.promise()).toBe(first);
    expect(first.connection).toBe(a);
    expect(b.promise()).not.toBe(first);
    expect(b.promise().connection).toBe(b);
    expect([a.made, b.made]).toEqual([1, 1]);
  });

  it('makes a new wrapper for another Promise implementation', () => {
    const a = new FakeConnection();
    const own = a.promise(Promise);
    expect(own.impl).toBe(Promise);
    expect(a.promise(Promise)).not.toBe(own);
    expect(a.made).toBe(2);
  });

  it('is installed on mysql2 PoolConnection by loadMysqlDriver', () => {
    const mysql2 = loadMysqlDriver() as typeof import('mysql2');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect(mysql2).toBe(require('mysql2'));
    const promise = mysql2.PoolConnection.prototype.promise;
    expect(loadMysqlDriver()).toBe(mysql2);
    expect(mysql2.PoolConnection.prototype.promise).toBe(promise);
  });
});
