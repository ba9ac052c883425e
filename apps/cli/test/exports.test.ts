import { gunzipSync } from 'node:zlib';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { DOMAIN_FIELDS, domainSchema, errorEnvelopeSchema, type Domain } from '@domain-index/contract';
import { plans, sql } from '@domain-index/db';
import { testEngines } from '@domain-index/db/testing';
import { createKey } from '@domain-index/accounts/key-store';
import { DEFAULT_SOURCES } from '@domain-index/indexer';
import { seedIndex } from '@domain-index/worker/indexing/seed-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';
import { startFixtureApi } from './support/fixture-api';
import { csvRecords } from './support/csv-records';
import { holdTableLock, locksOn, untilWaiting } from './support/locks';
import { walk } from './support/search-client';
import type { Params } from './support/oracle';

const exportPath = (params: Params) => `/api/v1/exports/domains?${new URLSearchParams(params).toString()}`;

/** The rows of a JSONL body, each checked against the contract's domain object; a summary or error line is returned apart. */
function jsonlRows(text: string): { rows: Domain[]; last: unknown } {
  const lines = text.split('\n');
  expect(lines.at(-1)).toBe('');
  const parsed = lines.slice(0, -1).map((line) => JSON.parse(line) as unknown);
  const last = parsed.at(-1);
  const isRow = (value: unknown) => typeof value === 'object' && value !== null && 'domain_name' in value;
  return { rows: parsed.filter(isRow).map((row) => domainSchema.parse(row)), last: last !== undefined && !isRow(last) ? last : undefined };
}

/** A domain's fields as CSV writes them: null empty, everything else as text. */
const asCsv = (domain: Domain) => DOMAIN_FIELDS.map((field) => (domain[field] === null ? '' : String(domain[field])));

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`GET /api/v1/exports/domains on ${engine}`, () => {
    let api: RunningApi;

    beforeAll(async () => {
      ({ api } = await startFixtureApi(engine));
    });
    afterAll(async () => {
      await api.close();
    });

    it('streams status=all as JSON lines: the rows and the order of a full paged walk, the same bytes per object', async () => {
      const response = await api.get(exportPath({ status: 'all', format: 'jsonl' }));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
      expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="domains-\d{8}T\d{6}Z\.jsonl"$/);
      const text = await response.text();
      const { rows, last } = jsonlRows(text);
      expect(last).toBeUndefined();
      const { rows: walked, pages } = await walk(api, { status: 'all', limit: '10' });
      expect(pages.length).toBeGreaterThan(2);
      expect(rows).toEqual(walked);
      // each line is the search's own serialisation of the object
      expect(text).toBe(walked.map((domain) => `${JSON.stringify(domain)}\n`).join(''));
      expect(response.headers.get('x-total-count')).toBe(String(walked.length));
    });

    it('agrees with search for every sort and order and for filters', async () => {
      const cases: Params[] = [
        {},
        { status: 'dropping' },
        { status: 'all', tld: 'com', no_hyphens: 'true' },
        { status: 'all', min_price: '10', max_price: '5000', sort: 'current_bid' },
        { search: 'ab', status: 'all' },
        { ending_within: '48' },
      ];
      for (const sort of ['domain_name', 'length', 'current_bid', 'auction_end_time', 'bid_count', 'buy_now_price', 'index_score'])
        for (const order of ['asc', 'desc']) cases.push({ status: 'all', sort, order });
      for (const params of cases) {
        const response = await api.get(exportPath({ ...params, format: 'jsonl' }));
        expect(response.status, JSON.stringify(params)).toBe(200);
        const { rows } = jsonlRows(await response.text());
        const { rows: walked } = await walk(api, { ...params, limit: '200' });
        expect(rows, JSON.stringify(params)).toEqual(walked);
      }
    });

    it('streams CSV: a header of the domain fields in order, RFC 4180, empty for null, no BOM', async () => {
      const response = await api.get(exportPath({ status: 'all', format: 'csv', sort: 'domain_name' }));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(bytes[0]).toBe('d'.charCodeAt(0));
      const [header, ...records] = csvRecords(bytes.toString('utf8'));
      expect(header).toEqual(DOMAIN_FIELDS);
      const { rows: walked } = await walk(api, { status: 'all', sort: 'domain_name', limit: '200' });
      expect(records).toEqual(walked.map(asCsv));
    });

    it('ends JSON lines with the row count when summary=true', async () => {
      const response = await api.get(exportPath({ status: 'all', format: 'jsonl', summary: 'true' }));
      const { rows, last } = jsonlRows(await response.text());
      expect(last).toEqual({ object: 'export_summary', rows: rows.length });
    });

    it('answers HEAD with the exact count of the same snapshot and no body', async () => {
      const response = await api.get(exportPath({ status: 'all', format: 'csv', tld: 'com' }), { method: 'HEAD' });
      expect(response.status).toBe(200);
      const { rows } = await walk(api, { status: 'all', tld: 'com', limit: '200' });
      expect(response.headers.get('x-total-count')).toBe(String(rows.length));
      expect(await response.text()).toBe('');
    });

    it('compresses with gzip when the request accepts it', async () => {
      const plain = await (await api.get(exportPath({ status: 'all', format: 'csv' }))).text();
      const response = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = httpRequest(`${api.baseUrl}${exportPath({ status: 'all', format: 'csv' })}`, { headers: { authorization: `Bearer ${api.apiKey}`, 'accept-encoding': 'gzip' } }, resolve);
        req.on('error', reject);
        req.end();
      });
      expect(response.headers['content-encoding']).toBe('gzip');
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      expect(gunzipSync(Buffer.concat(chunks)).toString('utf8')).toBe(plain);
    });

    it('refuses a bad or missing format, summary with CSV, and limit or cursor, naming the parameter', async () => {
      const expectError = async (params: Params, param: string) => {
        const response = await api.get(exportPath(params));
        expect(response.status).toBe(400);
        const body = errorEnvelopeSchema.parse(await response.json());
        expect(body.error).toMatchObject({ code: 'invalid_parameter', param });
        return body.error.message;
      };
      expect(await expectError({ format: 'xlsx' }, 'format')).toBe('format must be one of csv, jsonl');
      expect(await expectError({}, 'format')).toBe('format is required: one of csv, jsonl');
      expect(await expectError({ format: 'csv', summary: 'true' }, 'summary')).toMatch(/format=jsonl only/);
      // a search's paging parameters: an export streams every row
      for (const param of ['limit', 'cursor', 'offset']) {
        const unknown = await api.get(exportPath({ format: 'csv', [param]: '5' }));
        expect(unknown.status).toBe(400);
        expect(await unknown.json()).toEqual({ error: { code: 'unknown_parameter', message: `${param} is not a parameter of this endpoint`, param } });
      }
    });
  });
}

describe('CSV quoting', () => {
  it('quotes commas, quotes and line breaks as RFC 4180 says, and leaves plain fields bare', async () => {
    const { csvField } = await import('@domain-index/contract');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField(null)).toBe('');
    expect(csvField(12.5)).toBe('12.5');
    expect(csvField(false)).toBe('false');
    expect(csvRecords(`${['a,b', 'say "hi"', 'line\nbreak', ''].map(csvField).join(',')}\r\n`)).toEqual([['a,b', 'say "hi"', 'line\nbreak', '']]);
  });
});

/** Rows of the larger index of the limits suites: enough that an export costs several requests and outlasts a socket's buffers. */
const SEEDED_ROWS = 30_000;
const STILL = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 60_000);

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`export limits on ${engine}`, () => {
    let api: RunningApi;
    let total: number;

    beforeAll(async () => {
      // a clock that stands still: no seeded auction ends between one request and the next
      const clock = { now: () => STILL };
      api = await startApi(engine, { clock });
      await seedIndex({ database: api.test.database, sources: DEFAULT_SOURCES, rows: SEEDED_ROWS, clock });
      const head = await api.get(exportPath({ status: 'all', format: 'csv' }), { method: 'HEAD' });
      total = Number(head.headers.get('x-total-count'));
    }, 120_000);
    afterAll(async () => {
      await api.close();
    });

    const keyOnPlan = async (plan: { id: string; requestsPerWindow: number; exportRowsMax: number | null }) => {
      await api.test.database.db.insert(plans).values({ ...plan, windowSeconds: 3600, description: plan.id }).onConflictDoNothing();
      return (await createKey(api.test.database, { planId: plan.id, name: plan.id, environment: 'test' })).key;
    };

    it('costs one request per started 1,000 rows, refused up front with the numbers when it does not fit', async () => {
      expect(total).toBeGreaterThan(2_000);
      const cost = Math.ceil(total / 1000);
      const key = await keyOnPlan({ id: 'export-small', requestsPerWindow: cost + 1, exportRowsMax: null });
      const auth = { headers: { authorization: `Bearer ${key}` } };
      const first = await api.get(exportPath({ status: 'all', format: 'csv' }), auth);
      expect(first.status).toBe(200);
      expect(first.headers.get('x-export-cost')).toBe(String(cost));
      expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
      await first.arrayBuffer();
      const second = await api.get(exportPath({ status: 'all', format: 'jsonl' }), auth);
      expect(second.status).toBe(429);
      expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await second.json()).toEqual({
        error: {
          code: 'rate_limited',
          message: `this export would stream ${total} rows, which costs ${cost} requests (one per started 1000 rows); this key has 1 left in the current window, this request included: retry after ${second.headers.get('retry-after')} s, or narrow the filters`,
        },
      });
    });

    it("refuses more rows than the plan's export_rows_max with the numbers and the plan", async () => {
      const key = await keyOnPlan({ id: 'export-capped', requestsPerWindow: 1000, exportRowsMax: 1000 });
      const response = await api.get(exportPath({ status: 'all', format: 'csv' }), { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({
        error: { code: 'export_too_large', message: `this export would stream ${total} rows and your plan (export-capped) allows 1000 per export: narrow the filters, or move to a plan with more` },
      });
    });

    /** An export whose client reads nothing: the server fills the socket and then has to wait. */
    const stalledExport = (key: string) =>
      new Promise<{ req: ClientRequest; res: IncomingMessage }>((resolve, reject) => {
        const req = httpRequest(`${api.baseUrl}${exportPath({ status: 'all', format: 'jsonl' })}`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
          res.pause();
          resolve({ req, res });
        });
        req.on('error', () => undefined);
        req.on('socket', (socket) => socket.setNoDelay(true));
        req.end();
        setTimeout(() => reject(new Error('no answer')), 20_000).unref();
      });

    // PGlite runs one transaction at a time: a second export waits for the first, so only
    // PostgreSQL can hold two open here (the slots are the same code on both)
    if (engine !== 'pglite') it('runs at most 2 exports per key at once: the third is 429 saying so', async () => {
      const key = await keyOnPlan({ id: 'export-busy', requestsPerWindow: 1000, exportRowsMax: null });
      const held = [await stalledExport(key), await stalledExport(key)];
      const third = await api.get(exportPath({ status: 'all', format: 'csv' }), { headers: { authorization: `Bearer ${key}` } });
      expect(third.status).toBe(429);
      expect(await third.json()).toEqual({
        error: { code: 'rate_limited', message: 'this key already has 2 exports running, the most one key may run at once; retry when one has finished' },
      });
      for (const { req } of held) req.destroy();
      // the slots come back once the server has seen the clients go
      await expect.poll(async () => (await api.get(exportPath({ status: 'all', format: 'csv' }), { method: 'HEAD', headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt += 1) {
        const again = await api.get(exportPath({ status: 'all', format: 'csv', max_length: '3' }), { headers: { authorization: `Bearer ${key}` } });
        status = again.status;
        await again.arrayBuffer();
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(200);
    });

    it('holds only a few pages for a reader that stops reading: the cursor waits for the socket', async () => {
      const fetched = () => api.metrics.exportRows.get().then((metric) => metric.values.reduce((sum, value) => sum + value.value, 0));
      const before = await fetched();
      const { req } = await stalledExport(api.apiKey);
      try {
        // let the server fill what the socket takes (on a loaded machine, it may take a while),
        // then see that it stopped fetching
        let settled = await fetched();
        await expect
          .poll(async () => {
            await new Promise((resolve) => setTimeout(resolve, 500));
            const now = await fetched();
            const still = now === settled && now > before;
            settled = now;
            return still;
          }, { timeout: 30_000, interval: 0 })
          .toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        expect(await fetched()).toBe(settled);
        expect(settled - before).toBeLessThan(total / 2);
      } finally {
        req.destroy();
      }
    });

    it('holds nothing for a client that sends its request and leaves at once: the key streams its next exports', async () => {
      const key = await keyOnPlan({ id: 'export-leavers', requestsPerWindow: 1000, exportRowsMax: null });
      const logsFrom = api.logLines.length;
      const port = Number(new URL(api.baseUrl).port);
      // more clients than the key has slots, each gone before the server has checked the key
      for (let i = 0; i < 3; i += 1) {
        await new Promise<void>((resolve) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.write(`GET ${exportPath({ status: 'all', format: 'jsonl' })} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`, () => {
              socket.destroy();
              resolve();
            });
          });
          socket.on('error', () => undefined);
        });
      }
      // neither a slot (429) nor the embedded database's one transaction (a wait) is held for
      // them: once the server has seen them go (a moment, where a held slot was 30 minutes),
      // the key streams its exports
      const exportOnce = async () => {
        const response = await api.get(exportPath({ status: 'all', format: 'csv', max_length: '3' }), { headers: { authorization: `Bearer ${key}` } });
        await response.arrayBuffer();
        return response.status;
      };
      await expect.poll(exportOnce, { timeout: 15_000, interval: 200 }).toBe(200);
      expect(await exportOnce()).toBe(200);
      // a client leaving is no fault of the server's
      const lines = api.logLines.slice(logsFrom);
      expect(lines.filter((line) => line.includes('request aborted')).length).toBeGreaterThanOrEqual(3);
      expect(lines.filter((line) => line.includes('"level":50'))).toEqual([]);
    });

    it('ends a failed export visibly: an error line for JSON lines, an aborted body for CSV', async () => {
      // an instance on the same database whose exports may run 1 s: a reader that waits longer makes one fail part-way
      const short = await startApi(engine, { test: api.test, clock: { now: () => STILL }, overrides: { exportTimeoutMs: 1_000 } });
      try {
        const slowRead = async (format: string) => {
          const response = await new Promise<IncomingMessage>((resolve, reject) => {
            const req = httpRequest(`${short.baseUrl}${exportPath({ status: 'all', format })}`, { headers: { authorization: `Bearer ${short.apiKey}` } }, resolve);
            req.on('error', reject);
            req.end();
          });
          response.pause();
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          const chunks: Buffer[] = [];
          try {
            for await (const chunk of response) chunks.push(chunk as Buffer);
            return { text: Buffer.concat(chunks).toString('utf8'), aborted: false };
          } catch {
            return { text: Buffer.concat(chunks).toString('utf8'), aborted: true };
          }
        };
        const jsonl = await slowRead('jsonl');
        expect(jsonl.aborted).toBe(false);
        const lines = jsonl.text.split('\n');
        expect(lines.at(-1)).toBe('');
        const last = JSON.parse(lines.at(-2)!) as { error: { code: string; message: string } };
        expect(last.error.code).toBe('query_failed');
        expect(last.error.message).toMatch(/^the export ran past its time limit after \d+ rows and is incomplete; narrow the filters$/);
        expect(lines.length - 2).toBeLessThan(total);
        const csv = await slowRead('csv');
        expect(csv.aborted).toBe(true);
        expect(csv.text.split('\r\n').length - 2).toBeLessThan(total);
      } finally {
        await short.close();
      }
    });

    if (engine === 'postgres') {
      it('ends the query on PostgreSQL at once when the client goes away', async () => {
        const activeExports = async () => {
          // the statement's text is cut at track_activity_query_size: its select list is what shows
          const rows = await api.test.database.rows<{ n: number }>(sql`select count(*)::int as n from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid()
              and (state like 'idle in transaction%' or (state = 'active' and query like 'select "listings"."domain_name", "listings"."tld", "listings"."status"%'))`);
          return rows[0]?.n ?? 0;
        };
        await expect.poll(activeExports, { timeout: 10_000 }).toBe(0);
        const { req } = await stalledExport(api.apiKey);
        await expect.poll(activeExports).toBeGreaterThan(0);
        req.destroy();
        // at once: where the query ran on, it held its connection for the export's 30 minutes
        await expect.poll(activeExports, { timeout: 15_000 }).toBe(0);
      });

      it('cancels the count of a client that left while it ran, and charges nothing for it', async () => {
        const cost = Math.ceil(total / 1000);
        const key = await keyOnPlan({ id: 'export-count-leaver', requestsPerWindow: cost + 10, exportRowsMax: null });
        // the count waits on a lock for as long as the test holds it: a count that takes its time
        const lock = await holdTableLock(api.test.url!);
        try {
          const { req } = await new Promise<{ req: ClientRequest }>((resolve) => {
            const req = httpRequest(`${api.baseUrl}${exportPath({ status: 'all', format: 'jsonl' })}`, { headers: { authorization: `Bearer ${key}` } });
            req.on('error', () => undefined);
            req.end(() => resolve({ req }));
          });
          await untilWaiting(api.test.database, 'listings');
          req.destroy();
          // cancelled on the server while the lock is still held, not left to finish after it
          await expect.poll(() => locksOn(api.test.database, 'listings', false), { timeout: 15_000 }).toBe(0);
        } finally {
          await lock.release();
        }
        // the request that left counted 1, as any request does; its rows were never charged
        const next = await api.get(exportPath({ status: 'all', format: 'csv', max_length: '3' }), { headers: { authorization: `Bearer ${key}` } });
        expect(next.status).toBe(200);
        await next.arrayBuffer();
        expect(next.headers.get('x-ratelimit-remaining')).toBe(String(cost + 10 - 1 - Number(next.headers.get('x-export-cost'))));
      });

      it('answers 503 query_failed when the count outlasts EXPORT_TIMEOUT_MS, and cancels it', async () => {
        const short = await startApi(engine, { test: api.test, clock: { now: () => STILL }, overrides: { exportTimeoutMs: 1_000 } });
        const lock = await holdTableLock(api.test.url!);
        try {
          const response = await short.get(exportPath({ status: 'all', format: 'csv' }), { headers: { authorization: `Bearer ${short.apiKey}` } });
          expect(response.status).toBe(503);
          expect(await response.json()).toEqual({
            error: { code: 'query_failed', message: 'the export could not count its rows within its time limit; narrow the filters' },
          });
          // cancelled at the limit, while the lock it waited on is still held
          await expect.poll(() => locksOn(api.test.database, 'listings', false), { timeout: 15_000 }).toBe(0);
        } finally {
          await lock.release();
          await short.close();
        }
      });
    }
  });
}
