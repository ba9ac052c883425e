import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listings, plans, migrateDatabase, openDatabase } from '../src';
import { createTestDatabase, testEngines, type TestDatabase } from '../src/testing';

const now = new Date('2026-11-21T07:04:00.123Z');

function listing(domainName: string, source: string, extra: Partial<typeof listings.$inferInsert> = {}) {
  return {
    domainName,
    tld: 'com',
    status: 'auction' as const,
    source,
    length: domainName.split('.')[0]!.length,
    hasHyphens: false,
    hasNumbers: false,
    wordCount: 1,
    indexScore: 40,
    updatedAt: now,
    ...extra,
  };
}

/** The SQLSTATE a statement fails with (the first `code` down the error's causes); fails the test if it succeeds. */
async function sqlstateOf(statement: PromiseLike<unknown>): Promise<unknown> {
  try {
    await statement;
  } catch (error) {
    let current: unknown = error;
    for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
      if ('code' in current) return current.code;
      current = (current as { cause?: unknown }).cause;
    }
    return undefined;
  }
  throw new Error('expected the statement to fail');
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`database layer on ${engine}`, () => {
    let test: TestDatabase;
    beforeAll(async () => {
      test = await createTestDatabase(engine);
    });
    afterAll(async () => {
      await test.dispose();
    });

    it('applies the migrations: tables, pg_trgm and the default plans exist', async () => {
      const { database } = test;
      const rows = await database.db.select().from(plans).orderBy(plans.id);
      expect(rows).toEqual([
        { id: 'free', requestsPerWindow: 60, windowSeconds: 3600, description: 'Free: 60 requests per hour', alertsLimit: 2, watchLimit: 100, rdapRefreshesPerHour: 20, exportRowsMax: 10000 },
        { id: 'pro', requestsPerWindow: 1000, windowSeconds: 3600, description: 'Pro: 1,000 requests per hour', alertsLimit: 50, watchLimit: 10000, rdapRefreshesPerHour: 500, exportRowsMax: null },
      ]);
      const ext = await database.rows<{ extname: string }>(sql`select extname from pg_extension where extname = 'pg_trgm'`);
      expect(ext).toEqual([{ extname: 'pg_trgm' }]);
    });

    it('is idempotent: migrating an up-to-date database changes nothing', async () => {
      await migrateDatabase(test.database);
      const rows = await test.database.db.select().from(plans);
      expect(rows).toHaveLength(2);
    });

    it('stores and reads back every typed column, with money as numbers and milliseconds kept', async () => {
      const { db } = test.database;
      await db.insert(listings).values(
        listing('example.com', 'source_1', {
          currentBid: 120.5,
          auctionEndTime: new Date('2026-11-22T10:00:00.999Z'),
          seoaBacklinks: 10,
          seobBacklinks: 3_000_000_000,
          seocBacklinks: 5,
          seoaDr: 31.5,
        }),
      );
      const [row] = await db.select().from(listings).where(eq(listings.domainName, 'example.com'));
      expect(row?.currentBid).toBe(120.5);
      expect(row?.auctionEndTime?.toISOString()).toBe('2026-11-22T10:00:00.999Z');
      expect(row?.updatedAt.toISOString()).toBe('2026-11-21T07:04:00.123Z');
      expect(row?.seoaDr).toBe(31.5);
      // the internal generated column holds the greatest of the three providers' counts
      expect(row?.maxBacklinks).toBe(3_000_000_000);
    });

    it('keeps one row per name per marketplace and rejects an unknown status', async () => {
      const { db } = test.database;
      await db.insert(listings).values(listing('twice.com', 'source_1'));
      await db.insert(listings).values(listing('twice.com', 'source_2'));
      // the database's own refusals, not any error: a unique violation, and a status its check constraint rejects
      expect(await sqlstateOf(db.insert(listings).values(listing('twice.com', 'source_1')))).toBe('23505');
      expect(
        await sqlstateOf(db.insert(listings).values({ ...listing('bad.com', 'source_1'), status: 'sold' as 'auction' })),
      ).toBe('23514');
      expect(await db.select().from(listings).where(eq(listings.domainName, 'twice.com'))).toHaveLength(2);
      expect(await db.select().from(listings).where(eq(listings.domainName, 'bad.com'))).toEqual([]);
    });

    it('answers substring terms through the trigram operator class', async () => {
      const { database } = test;
      await database.db.insert(listings).values([listing('bluewhale.com', 's'), listing('redfox.com', 's')]);
      const rows = await database.rows<{ domain_name: string }>(
        sql`select domain_name from listings where domain_name like ${'%whal%'} order by domain_name`,
      );
      expect(rows).toEqual([{ domain_name: 'bluewhale.com' }]);
      const similar = await database.rows<{ s: number }>(sql`select similarity('bluewhale', 'whale') as s`);
      expect(similar[0]?.s).toBeGreaterThan(0);
    });


    it('answers two-character terms through the bigram index: exactly the names holding the pair', async () => {
      const { database } = test;
      // a pair at the start, the end, twice, across a dot and a hyphen, in a multibyte name, and a
      // one-character name (no pair at all)
      const names = ['qzone.net', 'abqz.net', 'qzqz.net', 'q.zq.net', 'q-z.net', 'müqzü.net', 'qüz.net', 'q'];
      await database.db.insert(listings).values(names.map((name) => listing(name, 'bigrams')));
      const bigrams = await database.rows<{ bigrams: string[] }>(sql`select domain_bigrams('qzqz.net') as bigrams`);
      expect(new Set(bigrams[0]?.bigrams)).toEqual(new Set(['qz', 'zq', 'z.', '.n', 'ne', 'et']));
      const none = await database.rows<{ bigrams: string[] }>(sql`select domain_bigrams('q') as bigrams`);
      expect(none[0]?.bigrams).toEqual([]);
      for (const [pair, holders] of [
        ['qz', ['abqz.net', 'müqzü.net', 'qzone.net', 'qzqz.net']],
        ['üq', ['müqzü.net']],
        ['.z', ['q.zq.net']],
        ['-z', ['q-z.net']],
      ] as const) {
        // the planner must take the index, not a scan that would hide a wrong index
        const found = await database.db.transaction(async (tx) => {
          await tx.execute(sql`set local enable_seqscan = off`);
          return tx.execute(
            sql`select domain_name from listings where source = 'bigrams' and domain_bigrams(domain_name) @> array[${pair}]::text[]`,
          );
        });
        // postgres.js returns the rows, PGlite an object holding them
        const rows = (Array.isArray(found) ? found : (found as { rows: unknown[] }).rows) as { domain_name: string }[];
        expect(rows.map((row) => row.domain_name).sort(), pair).toEqual([...holders].sort());
      }
    });
    if (engine === 'postgres') {
      it('serialises the migrations of several instances starting together on an empty database', async () => {
        const empty = await createTestDatabase('postgres', { migrate: false });
        try {
          const instances = await Promise.all(
            [1, 2, 3].map(() => openDatabase({ databaseUrl: empty.url, maxConnections: 2 })),
          );
          await Promise.all(instances.map((instance) => migrateDatabase(instance)));
          await Promise.all(instances.map((instance) => instance.close()));
          const rows = await empty.database.db.select().from(plans);
          expect(rows).toHaveLength(2);
        } finally {
          await empty.dispose();
        }
      });

      // A statement a hot path marks `prepare` is parsed and planned once per connection, then only
      // bound: sent unnamed, PostgreSQL parses and plans it on every request, in two round trips.
      // Through a pooler it must stay unnamed (the next statement may reach another server connection).
      const hot = { sql: 'select $1::int + 1 as prepared_hot_path_probe', params: [41] };
      const cold = { sql: 'select $1::int + 2 as unprepared_probe', params: [40] };
      const preparedTexts = async (database: Awaited<ReturnType<typeof openDatabase>>) =>
        (await database.values({ sql: 'select statement from pg_prepared_statements', params: [] })).map((row) => String(row[0]));

      it('prepares the statements a hot path marks, on a direct connection, and only those', async () => {
        const single = await openDatabase({ databaseUrl: test.url, maxConnections: 1 });
        try {
          expect(await single.values({ ...hot, prepare: true })).toEqual([[42]]);
          expect(await single.values({ ...hot, prepare: true })).toEqual([[42]]);
          expect(await single.values(cold)).toEqual([[42]]);
          await single.rows(sql`select 1 as drizzle_probe`);
          const texts = await preparedTexts(single);
          expect(texts.filter((text) => text.includes('prepared_hot_path_probe'))).toHaveLength(1);
          expect(texts.some((text) => text.includes('unprepared_probe'))).toBe(false);
          expect(texts.some((text) => text.includes('drizzle_probe'))).toBe(false);
        } finally {
          await single.close();
        }
      });

      it('prepares nothing through a pooler (?pgbouncer=true), even what a hot path marks', async () => {
        const url = new URL(test.url!);
        url.searchParams.set('pgbouncer', 'true');
        const pooled = await openDatabase({ databaseUrl: url.toString(), maxConnections: 1 });
        try {
          expect(await pooled.values({ ...hot, prepare: true })).toEqual([[42]]);
          expect(await pooled.values({ ...hot, prepare: true })).toEqual([[42]]);
          expect(await preparedTexts(pooled)).toEqual([]);
        } finally {
          await pooled.close();
        }
      });
    }
  });
}
