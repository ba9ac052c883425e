import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { eq, listings, migrateDatabase, openDatabase, sql, type Database } from '@domain-index/db';
import { DEFAULT_SOURCES, type SourceConfig } from '@domain-index/indexer';
import { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '@domain-index/runtime/clock';
import { importBatch, importBatches, type ImportSummary } from '@domain-index/worker/indexing/import-batch';
import { LISTING_COLUMN_LIST } from '@domain-index/worker/indexing/listing-columns';
import { lastCheckedAt } from '@domain-index/listings/last-checked-at';
import { auctionRecord, jsonlFeed } from '@domain-index/test-support/feeds';
import { startApi } from '@domain-index/api/test/support/start-api';

const source: SourceConfig = { ...DEFAULT_SOURCES[0]!, id: 'alpha', format: 'jsonl' };
const other: SourceConfig = { ...DEFAULT_SOURCES[0]!, id: 'beta', format: 'jsonl' };

/** The listings table's indexes as PostgreSQL would recreate them, and whether each is usable. */
async function indexesOf(database: Database): Promise<string[]> {
  // with the statistics targets set on an index's columns (migration 0027: the bigrams')
  const rows = await database.rows<{ definition: string; valid: boolean; targets: string | null }>(sql`
    select pg_get_indexdef(indexrelid) as definition, indisvalid as valid,
           (select string_agg(attnum || ':' || attstattarget, ' ' order by attnum) from pg_attribute
            where attrelid = indexrelid and attstattarget >= 0) as targets
    from pg_index where indrelid = 'listings'::regclass order by 1`);
  return rows.map((row) => `${row.definition}${row.valid ? '' : ' (INVALID)'}${row.targets === null ? '' : ` (statistics ${row.targets})`}`);
}

/** The listings table's identity and definition: columns, constraints, options, statistics targets and objects, identity sequence. */
async function tableOf(database: Database) {
  const [table] = await database.rows<{ oid: number; options: string[] | null; sequence: string | null }>(sql`
    select oid::int as oid, reloptions as options, pg_get_serial_sequence('listings', 'id') as sequence
    from pg_class where oid = 'listings'::regclass`);
  const columns = await database.rows(sql`
    select attname, format_type(atttypid, atttypmod) as type, attnotnull, attidentity, attgenerated,
           coalesce(attstattarget, -1) as target, pg_get_expr(d.adbin, d.adrelid) as default_value
    from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where attrelid = 'listings'::regclass and attnum > 0 and not attisdropped order by attnum`);
  const constraints = await database.rows(sql`
    select conname, pg_get_constraintdef(oid) as definition from pg_constraint where conrelid = 'listings'::regclass order by conname`);
  // extended statistics by name, definition and target (a migration alters them by name)
  const statistics = await database.rows(sql`
    select stxname, pg_get_statisticsobjdef(oid) as definition, coalesce(stxstattarget::int, -1) as target
    from pg_statistic_ext where stxrelid = 'listings'::regclass order by stxname`);
  return { oid: table!.oid, options: [...(table!.options ?? [])].sort(), sequence: table!.sequence, columns, constraints, statistics };
}

async function namesOf(database: Database, sourceId: string): Promise<string[]> {
  const rows = await database.rows<{ domain_name: string }>(
    sql`select domain_name from listings where source = ${sourceId} order by domain_name`,
  );
  return rows.map((row) => row.domain_name);
}

/** A thrown error and the errors down its cause chain, outermost first. */
function causesOf(thrown: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = thrown; current !== undefined && chain.length < 5; current = (current as { cause?: unknown }).cause) {
    chain.push(current);
    if (typeof current !== 'object' || current === null) break;
  }
  return chain;
}

function run(database: Database, feed: Readable, overrides: Partial<Parameters<typeof importBatch>[0]> = {}): Promise<ImportSummary> {
  return importBatch({ database, source, input: feed, clock: systemClock, ...overrides });
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`feed import on ${engine}`, () => {
    let test: TestDatabase;
    beforeAll(async () => {
      test = await createTestDatabase(engine);
    });
    afterAll(async () => {
      await test.dispose();
    });
    beforeEach(async () => {
      await test.database.db.delete(listings);
    });

    it('computes the derived fields of each row', async () => {
      const summary = await run(test.database, jsonlFeed([auctionRecord('Best-Car4You.CO.UK')]));
      expect(summary).toMatchObject({ outcome: 'applied', rowsRead: 1, inserted: 1, rejected: 0 });
      const [row] = await test.database.db.select().from(listings);
      expect(row).toMatchObject({
        domainName: 'best-car4you.co.uk',
        tld: 'co.uk',
        source: 'alpha',
        length: 'best-car4you'.length,
        hasHyphens: true,
        hasNumbers: true,
        wordCount: 0,
      });
      expect(row!.indexScore).toBeGreaterThanOrEqual(0);
      expect(row!.indexScore).toBeLessThanOrEqual(100);
    });

    it('makes the source hold exactly the batch: inserts, updates, keeps unchanged rows and removes the rest', async () => {
      const clock1: Clock = { now: () => new Date('2026-11-20T00:00:00.000Z') };
      const clock2: Clock = { now: () => new Date('2026-11-21T00:00:00.000Z') };
      await run(test.database, jsonlFeed([auctionRecord('aaa.com'), auctionRecord('bbb.com'), auctionRecord('ccc.com', { current_bid: 7 })]), { clock: clock1 });
      await importBatch({ database: test.database, source: other, input: jsonlFeed([auctionRecord('aaa.com')]), clock: clock1 });
      const summary = await run(
        test.database,
        jsonlFeed([auctionRecord('bbb.com', { current_bid: 99 }), auctionRecord('ccc.com', { current_bid: 7 }), auctionRecord('ddd.com')]),
        { clock: clock2 },
      );
      expect(summary).toMatchObject({ outcome: 'applied', rowsRead: 3, inserted: 1, updated: 1, unchanged: 1, removed: 1, rejected: 0 });
      expect(await namesOf(test.database, 'alpha')).toEqual(['bbb.com', 'ccc.com', 'ddd.com']);
      // another marketplace's rows are untouched
      expect(await namesOf(test.database, 'beta')).toEqual(['aaa.com']);
      // last_checked_at as the API reads it: every row of the batch was seen at its time
      const rows = await test.database.db
        .select({ name: listings.domainName, updatedAt: listings.updatedAt, lastCheckedAt, currentBid: listings.currentBid })
        .from(listings)
        .where(eq(listings.source, 'alpha'))
        .orderBy(listings.domainName);
      expect(rows.map((row) => [row.name, row.updatedAt.toISOString(), row.lastCheckedAt.toISOString(), row.currentBid])).toEqual([
        ['bbb.com', '2026-11-21T00:00:00.000Z', '2026-11-21T00:00:00.000Z', 99],
        ['ccc.com', '2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z', 7],
        ['ddd.com', '2026-11-21T00:00:00.000Z', '2026-11-21T00:00:00.000Z', 25],
      ]);
      const [beta] = await test.database.db.select({ lastCheckedAt }).from(listings).where(eq(listings.source, 'beta'));
      expect(beta?.lastCheckedAt.toISOString()).toBe('2026-11-20T00:00:00.000Z');
    });

    it('does not rewrite a listing the batch left unchanged', async () => {
      await run(test.database, jsonlFeed([auctionRecord('same.com'), auctionRecord('moved.com', { current_bid: 5 })]));
      const versions = async () =>
        Object.fromEntries(
          (await test.database.rows<{ domain_name: string; version: string }>(sql`select domain_name, xmin::text as version from listings`)).map(
            (row) => [row.domain_name, row.version],
          ),
        );
      const before = await versions();
      await run(test.database, jsonlFeed([auctionRecord('same.com'), auctionRecord('moved.com', { current_bid: 6 })]));
      const after = await versions();
      expect(after['same.com']).toBe(before['same.com']);
      expect(after['moved.com']).not.toBe(before['moved.com']);
    });

    it('loads an empty index with the bulk path into a table of its own, which takes the place of listings with every index, constraint and setting', async () => {
      const indexes = await indexesOf(test.database);
      expect(indexes.length).toBeGreaterThan(15);
      expect(indexes).toContain('CREATE INDEX listings_domain_name_bigrams_idx ON public.listings USING gin (domain_bigrams(domain_name)) (statistics 1:1000)');
      const before = await tableOf(test.database);
      expect(before.statistics).toEqual([
        expect.objectContaining({ stxname: 'listings_auction_end_stx', target: 1000 }),
        expect.objectContaining({ stxname: 'listings_name_terms_stx', target: 10000 }),
        expect.objectContaining({ stxname: 'listings_name_trigrams_stx', target: 3334 }),
        expect.objectContaining({ stxname: 'listings_not_ended_stx', target: 1000 }),
        expect.objectContaining({ stxname: 'listings_status_bid_stx', target: 1000 }),
      ]);
      const summary = await run(test.database, jsonlFeed(Array.from({ length: 500 }, (_, i) => auctionRecord(`bulk${i}.com`))));
      expect(summary).toMatchObject({ outcome: 'applied', inserted: 500 });
      const after = await tableOf(test.database);
      // a new table (the bulk path) under the old name, with the same definition throughout
      expect(after.oid).not.toBe(before.oid);
      expect({ ...after, oid: 0 }).toEqual({ ...before, oid: 0 });
      expect(after.options).toEqual(expect.arrayContaining(['fillfactor=80', 'vacuum_truncate=false']));
      expect(after.sequence).toBe('public.listings_id_seq');
      expect(await indexesOf(test.database)).toEqual(indexes);
      expect(await test.database.rows(sql`select 1 from pg_tables where tablename like 'listings_load_%'`)).toEqual([]);
      // a second batch takes the ordinary path: the same table
      await importBatch({ database: test.database, source: other, input: jsonlFeed([auctionRecord('second.com')]), clock: systemClock });
      expect((await tableOf(test.database)).oid).toBe(after.oid);
      // the rebuilt trigram index answers a substring search
      const [found] = await test.database.rows<{ n: number }>(sql`select count(*)::int as n from listings where domain_name like '%lk49%'`);
      expect(found?.n).toBe(11);
    });

    it('gives a statistics object its name back on upgrade after a first load of an earlier release had PostgreSQL name it', async () => {
      // as such a load left it: the object copied under the load table's name, at the default target
      await test.database.db.execute(sql`alter statistics listings_not_ended_stx rename to listings_load_0123456789ab_expr_stat`);
      await test.database.db.execute(sql`alter statistics listings_load_0123456789ab_expr_stat set statistics -1`);
      await test.database.db.execute(sql`drop statistics listings_status_bid_stx`);
      await test.database.db.execute(sql`drop statistics listings_auction_end_stx`);
      await test.database.db.execute(sql`drop statistics listings_name_terms_stx`);
      await test.database.db.execute(sql`alter index listings_domain_name_bigrams_idx alter column 1 set statistics -1`);
      await test.database.db.execute(sql`drop statistics listings_name_trigrams_stx`);
      await test.database.db.execute(sql`alter table listings alter column has_hyphens set statistics -1`);
      // 0024 and the migrations after it undone
      await test.database.db.execute(sql`delete from drizzle.__drizzle_migrations where created_at in (select created_at from drizzle.__drizzle_migrations order by created_at desc limit 5)`);
      expect(await migrateDatabase(test.database)).toEqual(['0024_range_statistics', '0025_auction_end_statistics', '0026_term_statistics', '0027_bigram_statistics', '0028_trigram_statistics']);
      expect((await tableOf(test.database)).statistics).toEqual([
        expect.objectContaining({ stxname: 'listings_auction_end_stx', target: 1000 }),
        expect.objectContaining({ stxname: 'listings_name_terms_stx', target: 10000 }),
        expect.objectContaining({ stxname: 'listings_name_trigrams_stx', target: 3334 }),
        expect.objectContaining({ stxname: 'listings_not_ended_stx', target: 1000 }),
        expect.objectContaining({ stxname: 'listings_status_bid_stx', target: 1000 }),
      ]);
      expect(await indexesOf(test.database)).toContain('CREATE INDEX listings_domain_name_bigrams_idx ON public.listings USING gin (domain_bigrams(domain_name)) (statistics 1:1000)');
    });

    it('loads two batches of one source into an empty index as two switches, the second one winning', async () => {
      const summaries = await importBatches({
        database: test.database,
        clock: systemClock,
        batches: [
          { source, input: jsonlFeed([auctionRecord('first.com'), auctionRecord('both.com', { current_bid: 5 })]) },
          { source, input: jsonlFeed([auctionRecord('both.com', { current_bid: 9 }), auctionRecord('second.com')]) },
        ],
      });
      expect(summaries.map((summary) => summary.outcome)).toEqual(['applied', 'applied']);
      expect(await namesOf(test.database, 'alpha')).toEqual(['both.com', 'second.com']);
      const [both] = await test.database.rows<{ current_bid: string }>(sql`select current_bid::text from listings where domain_name = 'both.com'`);
      expect(both?.current_bid).toBe('9.00');
    });

    it('leaves a large batch vacuumed and analysed, each column at its own statistics target', async () => {
      const summary = await run(test.database, jsonlFeed(Array.from({ length: 12_000 }, (_, i) => auctionRecord(`stats${i}.com`))));
      expect(summary).toMatchObject({ outcome: 'applied', inserted: 12_000 });
      // a visibility map: searches can answer from indexes alone
      const [pages] = await test.database.rows<{ relpages: number; relallvisible: number }>(
        sql`select relpages, relallvisible from pg_class where oid = 'listings'::regclass`,
      );
      expect(pages!.relpages).toBeGreaterThan(0);
      expect(pages!.relallvisible).toBe(pages!.relpages);
      const stats = await test.database.rows<{ attname: string; bounds: number | null }>(sql`
        select attname, array_length(histogram_bounds::text::text[], 1) as bounds
        from pg_stats where schemaname = 'public' and tablename = 'listings'`);
      const bounds = Object.fromEntries(stats.map((row) => [row.attname, row.bounds]));
      // domain_name's target of 1000 gives it a fine histogram; the rest keep the default 100
      expect(bounds['domain_name']).toBe(1001);
      expect(bounds['id']).toBe(101);
      expect(Object.keys(bounds)).toEqual(expect.arrayContaining(['tld', 'source', 'status', 'index_score', 'current_bid', 'auction_end_time']));
      // and the names' own histogram for planned totals of terms (migration 0026) 10,000 buckets
      const [terms] = await test.database.rows<{ bounds: number }>(sql`
        select array_length(histogram_bounds::text::text[], 1) as bounds from pg_stats_ext_exprs where statistics_name = 'listings_name_terms_stx'`);
      expect(terms?.bounds).toBe(10001);
      // and the names' trigrams (0028), in a group of their own: `stats` is in every name
      const [trigrams] = await test.database.rows<{ elements: string[] | null }>(sql`
        select most_common_elems::text::text[] as elements from pg_stats_ext_exprs where statistics_name = 'listings_name_trigrams_stx'`);
      expect(trigrams?.elements).toEqual(expect.arrayContaining(['sta', 'tat', 'ats']));
    });

    it('serves the loaded rows at once to an API whose connections prepared their statements against the table replaced', async () => {
      const api = await startApi(engine, { test });
      try {
        // lookups and key checks are prepared once per connection, on the empty table
        for (let i = 0; i < 6; i += 1) expect((await api.get('/api/v1/domains/later.com')).status).toBe(404);
        expect((await api.get('/api/v1/domains?status=all')).status).toBe(200);
        await run(test.database, jsonlFeed([auctionRecord('later.com')]));
        expect((await api.get('/api/v1/domains/later.com')).status).toBe(200);
        const page = (await (await api.get('/api/v1/domains?status=all')).json()) as { data: { domain_name: string }[] };
        expect(page.data.map((row) => row.domain_name)).toEqual(['later.com']);
      } finally {
        await api.close();
      }
    });

    it('keeps the empty index, its table and all its indexes when a first load fails inside the switch', async () => {
      const indexes = await indexesOf(test.database);
      const table = await tableOf(test.database);
      // a fault inside the switch transaction, in the rows appended to the bulk path's table
      await test.database.db.execute(sql`
        create function fail_on_boom() returns trigger language plpgsql as $$
        begin if new.domain_name = 'boom.com' then raise exception 'injected fault'; end if; return new; end $$`);
      await test.database.db.execute(sql`
        create function arm_load() returns event_trigger language plpgsql as $$
        declare created record;
        begin
          for created in select object_identity from pg_event_trigger_ddl_commands() where object_identity like '%listings_load_%' and command_tag = 'CREATE TABLE' loop
            execute format('create trigger fail_on_boom before insert on %s for each row execute function fail_on_boom()', created.object_identity);
          end loop;
        end $$`);
      await test.database.db.execute(sql`create event trigger arm_load on ddl_command_end when tag in ('CREATE TABLE') execute function arm_load()`);
      try {
        // the injected fault itself, not whatever else might go wrong on the way to it
        const thrown = await run(test.database, jsonlFeed([auctionRecord('aaa.com'), auctionRecord('boom.com')])).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(causesOf(thrown)).toContainEqual(expect.objectContaining({ code: 'P0001', message: 'injected fault' }));
      } finally {
        await test.database.db.execute(sql`drop event trigger arm_load`);
        await test.database.db.execute(sql`drop function arm_load()`);
        await test.database.db.execute(sql`drop function fail_on_boom()`);
      }
      expect(await namesOf(test.database, 'alpha')).toEqual([]);
      expect(await tableOf(test.database)).toEqual(table);
      expect(await indexesOf(test.database)).toEqual(indexes);
      expect(await test.database.rows(sql`select 1 from pg_tables where tablename like 'listings_load_%'`)).toEqual([]);
    });

    it('keeps the empty index and leaves no table of its own when an index build of a first load fails', async () => {
      // On PostgreSQL the first load's indexes are built outside the switch, from two sessions;
      // on PGlite inside it. Either way a failed build leaves the index as it was.
      const indexes = await indexesOf(test.database);
      const table = await tableOf(test.database);
      await test.database.db.execute(sql`
        create function fail_gin_build() returns event_trigger language plpgsql as $$
        declare created record;
        begin
          for created in select objid from pg_event_trigger_ddl_commands() where object_identity like '%listings_load_%' loop
            if exists (select 1 from pg_class i join pg_am a on a.oid = i.relam where i.oid = created.objid and a.amname = 'gin') then
              raise exception 'injected index build fault';
            end if;
          end loop;
        end $$`);
      await test.database.db.execute(sql`create event trigger fail_gin_build on ddl_command_end when tag in ('CREATE INDEX') execute function fail_gin_build()`);
      try {
        const failure = await run(test.database, jsonlFeed([auctionRecord('aaa.com'), auctionRecord('bbb.com')])).then(
          () => undefined,
          (error: unknown) => error as Error & { cause?: Error },
        );
        expect(failure?.cause?.message ?? failure?.message).toContain('injected index build fault');
      } finally {
        await test.database.db.execute(sql`drop event trigger fail_gin_build`);
        await test.database.db.execute(sql`drop function fail_gin_build()`);
      }
      expect(await namesOf(test.database, 'alpha')).toEqual([]);
      expect(await tableOf(test.database)).toEqual(table);
      expect(await indexesOf(test.database)).toEqual(indexes);
      expect(await test.database.rows(sql`select 1 from pg_tables where tablename like 'listings_load_%'`)).toEqual([]);
    });

    // PostgreSQL only: another import can fill listings only while a first load's indexes are
    // built outside the switch; PGlite builds them inside it, on its one connection
    if (engine === 'postgres') it('switches a first load by the ordinary path when another import filled listings while its indexes were built', async () => {
      const table = await tableOf(test.database);
      // While the first index is built, a row of another source reaches listings, as another
      // import's switch would put it there.
      await test.database.db.execute(sql.raw(`
        create function fill_listings() returns event_trigger language plpgsql as $$
        declare created record;
        begin
          for created in select objid from pg_event_trigger_ddl_commands() where object_identity like '%listings_load_%' loop
            -- the two sessions building indexes: one at a time, so that only the first fills it
            perform pg_advisory_xact_lock(20201);
            if not exists (select 1 from listings) then
              execute format('insert into listings (${LISTING_COLUMN_LIST}, updated_at) select ${LISTING_COLUMN_LIST}, updated_at from %s limit 1',
                             (select indrelid::regclass from pg_index where indexrelid = created.objid));
              update listings set source = 'beta', domain_name = 'meanwhile.com';
            end if;
          end loop;
        end $$`));
      await test.database.db.execute(sql`create event trigger fill_listings on ddl_command_end when tag in ('CREATE INDEX') execute function fill_listings()`);
      try {
        const summary = await run(test.database, jsonlFeed([auctionRecord('aaa.com'), auctionRecord('bbb.com')]));
        expect(summary).toMatchObject({ outcome: 'applied', inserted: 2 });
      } finally {
        await test.database.db.execute(sql`drop event trigger fill_listings`);
        await test.database.db.execute(sql`drop function fill_listings()`);
      }
      expect(await namesOf(test.database, 'alpha')).toEqual(['aaa.com', 'bbb.com']);
      expect(await namesOf(test.database, 'beta')).toEqual(['meanwhile.com']);
      // the same table, in place: the prepared one was dropped
      expect((await tableOf(test.database)).oid).toBe(table.oid);
      expect(await test.database.rows(sql`select 1 from pg_tables where tablename like 'listings_load_%'`)).toEqual([]);
    });

    it('loads an empty index in place, by the ordinary path, when a view on listings would be lost by replacing the table', async () => {
      const table = await tableOf(test.database);
      await test.database.db.execute(sql`create view listing_names as select domain_name from listings`);
      try {
        expect(await run(test.database, jsonlFeed([auctionRecord('seen-by-view.com')]))).toMatchObject({ outcome: 'applied', inserted: 1 });
        expect((await tableOf(test.database)).oid).toBe(table.oid);
        expect(await test.database.rows(sql`select domain_name from listing_names`)).toEqual([{ domain_name: 'seen-by-view.com' }]);
      } finally {
        await test.database.db.execute(sql`drop view listing_names`);
      }
    });

    it('carries table privileges over to the loaded table, and loads in place when another role owns listings', async () => {
      const suffix = Math.random().toString(36).slice(2, 8);
      const [reader, owner] = [`di_reader_${suffix}`, `di_owner_${suffix}`];
      for (const role of [reader, owner]) await test.database.db.execute(sql.raw(`create role ${role}`));
      try {
        await test.database.db.execute(sql.raw(`grant select on listings to ${reader} with grant option`));
        const before = await tableOf(test.database);
        await run(test.database, jsonlFeed([auctionRecord('granted.com')]));
        expect((await tableOf(test.database)).oid).not.toBe(before.oid);
        const [granted] = await test.database.rows<{ select: boolean; option: boolean }>(sql.raw(`
          select has_table_privilege('${reader}', 'listings', 'SELECT') as select,
                 has_table_privilege('${reader}', 'listings', 'SELECT WITH GRANT OPTION') as option`));
        expect(granted).toEqual({ select: true, option: true });

        // owned by another role: the new table would be this role's, so the rows load in place
        await test.database.db.delete(listings);
        await test.database.db.execute(sql.raw(`alter table listings owner to ${owner}`));
        const owned = await tableOf(test.database);
        await run(test.database, jsonlFeed([auctionRecord('owned.com')]));
        expect((await tableOf(test.database)).oid).toBe(owned.oid);
        const [still] = await test.database.rows<{ owner: string }>(sql`select relowner::regrole::text as owner from pg_class where oid = 'listings'::regclass`);
        expect(still?.owner).toBe(owner);
      } finally {
        await test.database.db.execute(sql.raw(`alter table listings owner to current_user`));
        await test.database.db.execute(sql.raw(`revoke all on listings from ${reader}`));
        for (const role of [reader, owner]) await test.database.db.execute(sql.raw(`drop role ${role}`));
      }
    });

    it('loads an empty index in place, by the ordinary path, when a trigger on listings would be lost by replacing the table', async () => {
      const table = await tableOf(test.database);
      await test.database.db.execute(sql`create function keep_me() returns trigger language plpgsql as $$ begin return new; end $$`);
      await test.database.db.execute(sql`create trigger keep_me before insert on listings for each row execute function keep_me()`);
      try {
        expect(await run(test.database, jsonlFeed([auctionRecord('kept-trigger.com')]))).toMatchObject({ outcome: 'applied', inserted: 1 });
        expect((await tableOf(test.database)).oid).toBe(table.oid);
        expect(await test.database.rows(sql`select 1 from pg_trigger where tgname = 'keep_me'`)).toHaveLength(1);
      } finally {
        await test.database.db.execute(sql`drop trigger keep_me on listings`);
        await test.database.db.execute(sql`drop function keep_me()`);
      }
    });

    it('changes nothing and leaves no staging table behind when the feed breaks off mid-stream', async () => {
      await run(test.database, jsonlFeed([auctionRecord('kept.com')]));
      // several chunks are staged (one of them still being inserted) before the read fails
      const lines = Array.from({ length: 7_000 }, (_, i) => `${JSON.stringify(auctionRecord(`partial${i}.com`))}\n`);
      const broken = Readable.from(
        (function* () {
          yield* lines;
          throw new Error('connection to the feed reset');
        })(),
      );
      await expect(run(test.database, broken)).rejects.toThrow('connection to the feed reset');
      expect(await namesOf(test.database, 'alpha')).toEqual(['kept.com']);
      const staging = await test.database.rows(sql`select 1 from pg_tables where tablename like 'listing_import_%'`);
      expect(staging).toEqual([]);
    });

    it('changes nothing and leaves no staging table behind when a staging insert fails mid-stream', async () => {
      await run(test.database, jsonlFeed([auctionRecord('kept.com')]));
      // a fault in the COPY of the rows, injected into every staging table as it is created
      await test.database.db.execute(sql`
        create function fail_staging() returns trigger language plpgsql as $$
        begin if new.domain_name = 'boom-staging.com' then raise exception 'injected staging fault'; end if; return new; end $$`);
      await test.database.db.execute(sql`
        create function arm_staging() returns event_trigger language plpgsql as $$
        declare created record;
        begin
          for created in select object_identity from pg_event_trigger_ddl_commands() where object_identity like '%listing_import_%' loop
            execute format('create trigger fail_staging before insert on %s for each row execute function fail_staging()', created.object_identity);
          end loop;
        end $$`);
      await test.database.db.execute(sql`create event trigger arm_staging on ddl_command_end when tag in ('CREATE TABLE') execute function arm_staging()`);
      try {
        const records = Array.from({ length: 7_000 }, (_, i) => auctionRecord(i === 5_000 ? 'boom-staging.com' : `staged${i}.com`));
        const failure = await run(test.database, jsonlFeed(records)).then(
          () => undefined,
          (error: unknown) => error,
        );
        // the database's own error, without the rows sent
        expect(failure).toBeInstanceOf(Error);
        expect((failure as Error).message).toContain('injected staging fault');
      } finally {
        await test.database.db.execute(sql`drop event trigger arm_staging`);
        await test.database.db.execute(sql`drop function arm_staging()`);
        await test.database.db.execute(sql`drop function fail_staging()`);
      }
      expect(await namesOf(test.database, 'alpha')).toEqual(['kept.com']);
      const staging = await test.database.rows(sql`select 1 from pg_tables where tablename like 'listing_import_%'`);
      expect(staging).toEqual([]);
    });

    it('reports malformed lines with line and reason and skips them', async () => {
      const good = Array.from({ length: 96 }, (_, i) => auctionRecord(`good${i}.com`));
      const rejected: { line: number; reason: string }[] = [];
      const summary = await run(
        test.database,
        jsonlFeed([
          ...good.slice(0, 10),
          '{"domain_name": "broken.com", "status": ',
          auctionRecord('sold.com', { status: 'sold' }),
          auctionRecord('negative.com', { current_bid: -5 }),
          auctionRecord('baddate.com', { auction_end_time: 'next tuesday' }),
          ...good.slice(10),
        ]),
        { onRejected: (row) => rejected.push(row) },
      );
      expect(summary).toMatchObject({ outcome: 'applied', rowsRead: 100, inserted: 96, rejected: 4 });
      expect(rejected.map((row) => row.line)).toEqual([11, 12, 13, 14]);
      expect(rejected[0]!.reason).toMatch(/JSON/);
      expect(rejected[1]!.reason).toMatch(/status/);
      expect(rejected[2]!.reason).toMatch(/current_bid/);
      expect(rejected[3]!.reason).toMatch(/auction_end_time/);
      expect(summary.rejectedRows).toEqual(rejected);
      expect((await namesOf(test.database, 'alpha'))).toHaveLength(96);
    });

    it('rejects a batch with over 5% bad rows and keeps the previous batch unchanged', async () => {
      await run(test.database, jsonlFeed([auctionRecord('keep1.com'), auctionRecord('keep2.com')]));
      const before = await test.database.rows(sql`select * from listings order by id`);
      const records = [
        ...Array.from({ length: 94 }, (_, i) => auctionRecord(`new${i}.com`)),
        ...Array.from({ length: 6 }, () => auctionRecord('not a domain')),
      ];
      const summary = await run(test.database, jsonlFeed(records));
      expect(summary.outcome).toBe('rejected');
      expect(summary.reason).toMatch(/6 of 100 rows \(6\.0%\) are bad/);
      expect(await test.database.rows(sql`select * from listings order by id`)).toEqual(before);
    });

    it('accepts exactly 5% bad rows', async () => {
      const records = [
        ...Array.from({ length: 95 }, (_, i) => auctionRecord(`fine${i}.com`)),
        ...Array.from({ length: 5 }, () => auctionRecord('not a domain')),
      ];
      expect((await run(test.database, jsonlFeed(records))).outcome).toBe('applied');
    });

    it('rejects an empty feed instead of emptying the source', async () => {
      await run(test.database, jsonlFeed([auctionRecord('stay.com')]));
      const summary = await run(test.database, Readable.from(['']));
      expect(summary.outcome).toBe('rejected');
      expect(await namesOf(test.database, 'alpha')).toEqual(['stay.com']);
    });

    it('uses the last line of a name listed twice and reports the earlier one', async () => {
      const summary = await run(test.database, jsonlFeed([
        ...Array.from({ length: 30 }, (_, i) => auctionRecord(`n${i}.com`)),
        auctionRecord('twice.com', { current_bid: 1 }),
        auctionRecord('twice.com', { current_bid: 2 }),
      ]));
      expect(summary).toMatchObject({ outcome: 'applied', inserted: 31, rejected: 1 });
      expect(summary.rejectedRows[0]).toEqual({ line: 31, reason: 'duplicate of twice.com at line 32; the later line is used' });
      const rows = await test.database.rows<{ current_bid: string | number }>(sql`select current_bid from listings where domain_name = 'twice.com'`);
      expect(Number(rows[0]!.current_bid)).toBe(2);
    });

    it('counts every duplicate but describes only the first hundred, in line order', async () => {
      const reported: number[] = [];
      const summary = await run(
        test.database,
        jsonlFeed([
          ...Array.from({ length: 3_000 }, (_, i) => auctionRecord(`u${i}.com`)),
          ...Array.from({ length: 120 }, (_, i) => auctionRecord(`d${i}.com`, { current_bid: 1 })),
          ...Array.from({ length: 120 }, (_, i) => auctionRecord(`d${i}.com`, { current_bid: 2 })),
        ]),
        { onRejected: (row) => reported.push(row.line) },
      );
      expect(summary).toMatchObject({ outcome: 'applied', inserted: 3_120, rejected: 120 });
      expect(reported).toEqual(Array.from({ length: 100 }, (_, i) => 3_001 + i));
    });

    it('rejects rows whose source is another marketplace', async () => {
      const rejected: string[] = [];
      await run(test.database, jsonlFeed([...Array.from({ length: 30 }, (_, i) => auctionRecord(`m${i}.com`)), auctionRecord('x.com', { source: 'beta' })]), {
        onRejected: (row) => rejected.push(row.reason),
      });
      expect(rejected).toEqual(['source beta does not match the batch\'s source alpha']);
    });

    it('reads CSV feeds', async () => {
      const csv = 'domain_name,status,current_bid,auction_end_time\n"one.com",auction,12.50,\nTWO.net,available,,\n';
      const summary = await run(test.database, Readable.from([csv]), { format: 'csv' });
      expect(summary).toMatchObject({ outcome: 'applied', inserted: 2, rejected: 0 });
      expect(await namesOf(test.database, 'alpha')).toEqual(['one.com', 'two.net']);
    });

    it('switches atomically: a concurrent reader sees the old set or the new set, never a mix or none', async () => {
      const size = 3_000;
      await run(test.database, jsonlFeed(Array.from({ length: size }, (_, i) => auctionRecord(`old${i}.com`))));
      // On PostgreSQL the reader uses a connection of its own; PGlite interleaves statements.
      const reader = test.url === undefined ? test.database : await openDatabase({ databaseUrl: test.url, maxConnections: 1 });
      const seen = new Set<string>();
      let importing = true;
      const readLoop = (async () => {
        while (importing) {
          const [row] = await reader.rows<{ old: number; new: number }>(sql`
            select count(*) filter (where domain_name like 'old%')::int as old,
                   count(*) filter (where domain_name like 'new%')::int as new
            from listings where source = 'alpha'`);
          seen.add(`${row!.old}/${row!.new}`);
          // PGlite answers without I/O: yield so the import's stream events get their turn.
          await setImmediate();
        }
      })();
      const summary = await run(test.database, jsonlFeed(Array.from({ length: size + 500 }, (_, i) => auctionRecord(`new${i}.com`))));
      importing = false;
      await readLoop;
      if (reader !== test.database) await reader.close();
      expect(summary).toMatchObject({ outcome: 'applied', inserted: size + 500, removed: size });
      // the reader ran while the batch was being staged, so it saw the old set at least once
      expect(seen.has(`${size}/0`)).toBe(true);
      for (const state of seen) expect([`${size}/0`, `0/${size + 500}`]).toContain(state);
    });
  });
}
