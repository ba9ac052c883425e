import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inSnapshot, openDatabase, type Database } from '../src';
import { createTestDatabase, postgresTestEngine, testEngines, type TestDatabase } from '../src/testing';
import { openWithLateCancels, type LateCancelsDatabase } from './support/cancel-delaying-proxy';

const numbers = (n: number) => ({
  sql: `select i from generate_series(1, ${n}) as i order by i`,
  params: [],
});
const options = (signal = new AbortController().signal) => ({ statementTimeoutMs: 30_000, signal });

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`a snapshot's pages on ${engine}`, () => {
    let test: TestDatabase;
    // one connection on PostgreSQL: a read that left it waiting would hold every statement after it
    let database: Database;
    beforeAll(async () => {
      test = await createTestDatabase(engine);
      database =
        engine === 'postgres'
          ? await openDatabase({ databaseUrl: test.url!, maxConnections: 1 })
          : test.database;
    });
    afterAll(async () => {
      if (database !== test.database) await database.close();
      await test.dispose();
    });

    it('gives every row in order, in pages of the size asked for', async () => {
      const sizes: number[] = [];
      const seen: number[] = [];
      await inSnapshot(database, options(), async (snapshot) => {
        for await (const page of snapshot.pages(numbers(1_234), 500)) {
          sizes.push(page.length);
          for (const [i] of page) seen.push(Number(i));
        }
      });
      expect(sizes).toEqual([500, 500, 234]);
      expect(seen).toEqual(Array.from({ length: 1_234 }, (_, i) => i + 1));
    });

    it('ends the transaction when the caller stops after a page, and the connection serves the next statement', async () => {
      const first = await inSnapshot(database, options(), async (snapshot) => {
        for await (const page of snapshot.pages(numbers(5_000), 100)) return page.length;
        return 0;
      });
      expect(first).toBe(100);
      expect(await database.rows(sql`select 1 as one`)).toEqual([{ one: 1 }]);
    });

    it('fails with the abort reason when aborted while the caller holds a page, and the connection serves the next statement', async () => {
      const abort = new AbortController();
      const reason = new Error('the client went away');
      let pagesSeen = 0;
      const read = inSnapshot(database, options(abort.signal), async (snapshot) => {
        for await (const page of snapshot.pages(numbers(5_000), 100)) {
          pagesSeen += 1;
          expect(page).toHaveLength(100);
          abort.abort(reason);
          // the caller goes on working on its page for a moment after the abort
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      });
      await expect(read).rejects.toBe(reason);
      expect(pagesSeen).toBe(1);
      expect(await database.rows(sql`select 1 as one`)).toEqual([{ one: 1 }]);
    });
  });
}

const postgres = postgresTestEngine();

// A CancelRequest travels on a connection of its own and interrupts whatever its backend runs
// when it lands. Held 300 ms on its way, as on a busy machine, a cancel sent at the wrong time
// lands on the statement after the read, or on the read's own ROLLBACK.
describe.skipIf(postgres.skip)('an aborted snapshot on PostgreSQL, with cancels that arrive late', () => {
  let late: LateCancelsDatabase;
  beforeAll(async () => {
    late = await openWithLateCancels(300);
  });
  afterAll(async () => {
    await late.close();
  });

  it('sends no cancel when aborted while the caller holds a page, so the next statement on the connection runs to its end', async () => {
    const before = late.proxy.cancels();
    const abort = new AbortController();
    const reason = new Error('the client went away');
    const read = inSnapshot(late.database, options(abort.signal), async (snapshot) => {
      for await (const page of snapshot.pages(numbers(5_000), 100)) {
        expect(page).toHaveLength(100);
        // the next page (100 rows of a series, made in well under a millisecond) has come by
        // now: nothing runs on the server when the caller stops
        await new Promise((resolve) => setTimeout(resolve, 500));
        abort.abort(reason);
      }
    });
    await expect(read).rejects.toBe(reason);
    expect(await late.outlastACancel()).toEqual([{ slept: true }]);
    expect(late.proxy.cancels() - before).toBe(0);
    expect(await late.sessionsInTransaction()).toBe(0);
  });

  it('cancels a fetch in flight and ends the transaction only once the cancel has landed, so neither the ROLLBACK nor the next statement is cancelled', async () => {
    const before = late.proxy.cancels();
    const abort = new AbortController();
    const reason = new Error('the client went away');
    // the second page takes 100 ms to make: it is in flight when the caller aborts, and done
    // before the cancel (300 ms late) reaches the server
    const slowSecondPage = { sql: 'select i, pg_sleep(case when i = 101 then 0.1 else 0 end) from generate_series(1, 300) as i', params: [] };
    const read = inSnapshot(late.database, options(abort.signal), async (snapshot) => {
      for await (const page of snapshot.pages(slowSecondPage, 100)) {
        expect(page).toHaveLength(100);
        abort.abort(reason);
      }
    });
    await expect(read).rejects.toBe(reason);
    expect(late.proxy.cancels() - before).toBe(1);
    expect(await late.sessionsInTransaction()).toBe(0);
    expect(await late.outlastACancel()).toEqual([{ slept: true }]);
  });

  it('cancels a long fetch at once: the read ends when the cancel lands, not when the statement would have', async () => {
    const before = late.proxy.cancels();
    const abort = new AbortController();
    const reason = new Error('the client went away');
    const slowFirstPage = { sql: 'select i, pg_sleep(case when i = 1 then 20 else 0 end) from generate_series(1, 10) as i', params: [] };
    const started = performance.now();
    const read = inSnapshot(late.database, options(abort.signal), async (snapshot) => {
      for await (const page of snapshot.pages(slowFirstPage, 5)) expect(page).toHaveLength(5);
    });
    setTimeout(() => abort.abort(reason), 200);
    await expect(read).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(late.proxy.cancels() - before).toBe(1);
    expect(await late.sessionsInTransaction()).toBe(0);
    expect(await late.outlastACancel()).toEqual([{ slept: true }]);
  });
  it('cancels a count in flight, returns no count, and ends the transaction once the cancel has landed', async () => {
    const before = late.proxy.cancels();
    const abort = new AbortController();
    const reason = new Error('the client went away');
    // a count that takes 250 ms: in flight when the caller aborts (20 ms in), done before the
    // cancel (300 ms late) reaches the server, and still not returned to a caller who has left
    const slowCount = { sql: 'select count(*) from (select pg_sleep(0.25)) as slow', params: [] };
    let counted: number | undefined;
    const read = inSnapshot(late.database, options(abort.signal), async (snapshot) => {
      const counting = snapshot.count(slowCount);
      setTimeout(() => abort.abort(reason), 20);
      counted = await counting;
    });
    await expect(read).rejects.toBe(reason);
    expect(counted).toBeUndefined();
    expect(late.proxy.cancels() - before).toBe(1);
    expect(await late.sessionsInTransaction()).toBe(0);
    expect(await late.outlastACancel()).toEqual([{ slept: true }]);
  });
});
