import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyIn, copyTextRow } from './copy-in';
import { createTestDatabase, testEngines, type TestDatabase } from './testing';

describe.each(testEngines())('copyIn on $engine', ({ engine, skip }) => {
  let test: TestDatabase;

  beforeAll(async () => {
    if (skip) return;
    test = await createTestDatabase(engine, { migrate: false });
    await test.database.rows(sql`create table copied (id int, note text, flag boolean, amount real)`);
  });
  afterAll(async () => {
    await test?.dispose();
  });

  it.skipIf(skip)('stores every value as it was, the format\'s own characters and nulls included', async () => {
    const notes = ['plain', 'a\ttab', 'two\nlines', 'back\\slash', 'carriage\rreturn', '\\N'];
    const rows = notes.map((note, index) => copyTextRow([index, note, index % 2 === 0, index + 0.25])).join('') + copyTextRow([99, null, null, undefined]);
    await copyIn(test.database, 'copied', ['id', 'note', 'flag', 'amount'], rows);
    const stored = await test.database.rows<{ id: number; note: string | null; flag: boolean | null; amount: number | null }>(
      sql`select id, note, flag, amount from copied order by id`,
    );
    expect(stored).toEqual([
      ...notes.map((note, index) => ({ id: index, note, flag: index % 2 === 0, amount: index + 0.25 })),
      { id: 99, note: null, flag: null, amount: null },
    ]);
  });

  it.skipIf(skip)('stores nothing of rows the table refuses, and says why', async () => {
    const before = await test.database.rows<{ count: number }>(sql`select count(*)::int as count from copied`);
    const rows = copyTextRow([1000, 'fine', true, 1]) + copyTextRow(['not a number', 'bad', true, 1]);
    await expect(copyIn(test.database, 'copied', ['id', 'note', 'flag', 'amount'], rows)).rejects.toThrow(/integer/);
    const after = await test.database.rows<{ count: number }>(sql`select count(*)::int as count from copied`);
    expect(after).toEqual(before);
  });

  it.skipIf(skip)('copies while the same pool answers other queries, neither failing: the copy has a connection of its own', async () => {
    // a large COPY (written in several chunks) while more queries than the pool has connections run:
    // a query pipelined onto the connection in COPY breaks the protocol and PostgreSQL drops it
    const rows = Array.from({ length: 20_000 }, (_, index) => copyTextRow([index, `row ${index} ${'x'.repeat(60)}`, true, index])).join('');
    let stop = false;
    const failures: unknown[] = [];
    const load = Array.from({ length: 40 }, async () => {
      while (!stop) await test.database.rows(sql`select count(*) from pg_class`).catch((error: unknown) => failures.push(error));
    });
    try {
      for (let round = 0; round < 5; round += 1) await copyIn(test.database, 'copied', ['id', 'note', 'flag', 'amount'], rows);
    } finally {
      stop = true;
      await Promise.all(load);
    }
    expect(failures).toEqual([]);
    const [copied] = await test.database.rows<{ count: number }>(sql`select count(*)::int as count from copied where note like 'row %'`);
    expect(copied?.count).toBe(100_000);
  });
});
