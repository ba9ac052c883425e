import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAdvisoryLock } from './advisory-lock';
import { openDatabase, type Database } from './database';
import { createTestDatabase, postgresTestEngine, testEngines, type TestDatabase } from './testing';

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`advisory locks on ${engine}`, () => {
    let test: TestDatabase;
    beforeAll(async () => {
      test = await createTestDatabase(engine);
    });
    afterAll(async () => {
      await test.dispose();
    });

    it('lets one holder in at a time and frees the lock when the work is done, or fails', async () => {
      let release!: () => void;
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const holding = withAdvisoryLock(test.database, 'lock-a', () => {
        entered();
        return new Promise<string>((resolve) => (release = () => resolve('done')));
      });
      // the second caller is told at once, while the first still works
      await inside;
      await expect(withAdvisoryLock(test.database, 'lock-a', () => Promise.resolve('second'))).resolves.toEqual({ acquired: false });
      await expect(withAdvisoryLock(test.database, 'lock-b', () => Promise.resolve('other'))).resolves.toEqual({ acquired: true, value: 'other' });
      release();
      await expect(holding).resolves.toEqual({ acquired: true, value: 'done' });
      await expect(withAdvisoryLock(test.database, 'lock-a', () => Promise.reject(new Error('work failed')))).rejects.toThrow('work failed');
      await expect(withAdvisoryLock(test.database, 'lock-a', () => Promise.resolve('again'))).resolves.toEqual({ acquired: true, value: 'again' });
    });
  });
}

const postgres = postgresTestEngine();

describe.skipIf(postgres.skip)('advisory locks held by a transaction on PostgreSQL', () => {
  let test: TestDatabase;
  let other: Database;
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    other = await openDatabase({ databaseUrl: test.url, maxConnections: 2 });
  });
  afterAll(async () => {
    await other.close();
    await test.dispose();
  });

  it('holds a transaction-scoped lock that another process sees, and no session lock stays behind', async () => {
    let release!: () => void;
    const holding = withAdvisoryLock(test.database, 'sync:alpha', () => new Promise<void>((resolve) => (release = resolve)));
    const seen = async () =>
      (await other.rows<{ n: number }>(sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = hashtext('sync:alpha')::oid`))[0]!.n;
    for (let i = 0; i < 50 && (await seen()) === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await seen()).toBe(1);
    await expect(withAdvisoryLock(other, 'sync:alpha', () => Promise.resolve())).resolves.toEqual({ acquired: false });
    release();
    await holding;
    expect(await seen()).toBe(0);
  });

  it('reports the lock as lost when its connection is ended while the work runs, and lets the work finish', async () => {
    let release!: () => void;
    const holding = withAdvisoryLock(test.database, 'sync:beta', () => new Promise<string>((resolve) => (release = () => resolve('finished'))));
    const holder = async () =>
      (await other.rows<{ pid: number }>(sql`select pid from pg_locks where locktype = 'advisory' and objid = hashtext('sync:beta')::oid`))[0]?.pid;
    for (let i = 0; i < 50 && (await holder()) === undefined; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    await other.rows(sql`select pg_terminate_backend(${await holder()})`);
    // the backend lets its locks go as it exits, a moment after pg_terminate_backend returns
    for (let i = 0; i < 100 && (await holder()) !== undefined; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(withAdvisoryLock(other, 'sync:beta', () => Promise.resolve('taken'))).resolves.toEqual({ acquired: true, value: 'taken' });
    release();
    const outcome = await holding;
    expect(outcome).toMatchObject({ acquired: true, value: 'finished' });
    expect('lost' in outcome && outcome.lost).toBeInstanceOf(Error);
  });
});
