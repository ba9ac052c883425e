import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inSnapshot, openDatabase, type Database } from '../src';
import { createTestDatabase, testEngines, type TestDatabase } from '../src/testing';

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
