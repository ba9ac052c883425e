import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { eq, requestLog, sql, type Database } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import fc from 'fast-check';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, issueLink } from '@domain-index/accounts/account-store';
import { generateApiKey } from '@domain-index/accounts/api-key';
import { systemClock } from '@domain-index/runtime/clock';
import { createLogger } from '@domain-index/runtime/logger';
import { ApiMetrics } from '@domain-index/api/ops/api-metrics';
import { dayOf, ensurePartitions, partitionName } from '@domain-index/api/request-log/partitions';
import {
  REQUEST_LOG_DAYS,
  RequestLogRecorder,
  type SeenRequest,
} from '@domain-index/api/request-log/request-log-recorder';
import { DashboardClient, postNewKey, shownKey } from '@domain-index/test-support/dashboard-client';
import { buildFixtureIndex } from './support/fixture-index';
import { startApi, type RunningApi } from '@domain-index/api/test/support/start-api';

const SEED =
  process.env.PROPERTY_SEED === undefined
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env.PROPERTY_SEED);
const RUNS = Number(process.env.PROPERTY_RUNS ?? 150);
const DAY = 86_400_000;

const logger = createLogger(
  'info',
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  }),
);

/** A logger that keeps each line it writes, parsed. */
const capturingLogger = (lines: Record<string, unknown>[]) =>
  createLogger(
    'info',
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n'))
          if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    }),
  );

const seen = (at: number, keyId: string, extra: Partial<SeenRequest> = {}): SeenRequest => ({
  at,
  keyId,
  requestId: `req_${randomBytes(8).toString('hex')}`,
  method: 'GET',
  url: '/api/v1/stats',
  status: 200,
  errorCode: undefined,
  durationMs: 1.234,
  rows: 0,
  ...extra,
});

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`the request log on ${engine}`, () => {
    let test: TestDatabase;
    let database: Database;
    beforeAll(async () => {
      test = await createTestDatabase(engine);
      database = test.database;
    });
    afterAll(async () => {
      await test.dispose();
    });
    const rowsOf = (keyId: string) =>
      database.db
        .select({
          path: requestLog.path,
          status: requestLog.status,
          error_code: requestLog.errorCode,
          request_id: requestLog.requestId,
          duration_ms: requestLog.durationMs,
          rows_returned: requestLog.rowsReturned,
          at: requestLog.at,
        })
        .from(requestLog)
        .where(eq(requestLog.keyId, keyId))
        .orderBy(requestLog.at, requestLog.id);
    const partitions = async () =>
      (
        await database.rows<{ name: string }>(
          sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'request_log'::regclass order by 1`,
        )
      ).map((row) => row.name);

    it('writes what it was given in one statement per batch, redacted on the way', async () => {
      const at = Date.UTC(2026, 10, 25, 12, 0, 0, 123);
      // the recorder's clock is the rows' own: on the system clock, a later date would prune them
      const recorder = new RequestLogRecorder(database, logger, {
        flushEveryMs: 60_000,
        now: () => new Date(at),
      });
      const key = generateApiKey('live');
      recorder.record(
        seen(at, 'key_one', {
          url: '/api/v1/domains?search=cloud+data&limit=5',
          rows: 5,
          durationMs: 3.14159,
        }),
      );
      recorder.record(
        seen(at + 1, 'key_one', {
          url: `/api/v1/domains/${key}`,
          status: 400,
          errorCode: 'invalid_domain',
        }),
      );
      recorder.record(
        seen(at + 2, 'key_one', { requestId: 'K6BsvpgDjBDUcm94ol4Ou8CUTwFUB1-xSpITEvTHUqM' }),
      );
      await recorder.close();
      const rows = await rowsOf('key_one');
      expect(rows.map((row) => row.request_id)).toEqual([
        expect.stringMatching(/^req_/),
        expect.stringMatching(/^req_/),
        '[redacted]',
      ]);
      expect(
        rows.map(({ at: when, request_id: _id, ...row }) => ({ ...row, at: when.getTime() })),
      ).toEqual([
        {
          path: '/api/v1/domains?search=cloud+data&limit=5',
          status: 200,
          error_code: null,
          duration_ms: 3.14,
          rows_returned: 5,
          at,
        },
        {
          path: '/api/v1/domains/[redacted]',
          status: 400,
          error_code: 'invalid_domain',
          duration_ms: 1.23,
          rows_returned: 0,
          at: at + 1,
        },
        {
          path: '/api/v1/stats',
          status: 200,
          error_code: null,
          duration_ms: 1.23,
          rows_returned: 0,
          at: at + 2,
        },
      ]);
    });

    it('holds at most its buffer, counting what it drops, and keeps what a failed write could not write', async () => {
      const now = Date.UTC(2026, 10, 20, 12);
      const metrics = new ApiMetrics(new Registry());
      const lines: Record<string, unknown>[] = [];
      const recorder = new RequestLogRecorder(database, capturingLogger(lines), {
        flushEveryMs: 20,
        maxBuffered: 100,
        metrics,
        now: () => new Date(now),
      });
      const dropped = async () => (await metrics.requestLogDropped.get()).values[0]?.value ?? 0;
      const failedWrites = async () =>
        (await metrics.queryErrors.get()).values
          .filter((value) => value.labels.kind === 'request_log_flush')
          .reduce((sum, value) => sum + value.value, 0);
      // The failure is the test's own, whatever partitions earlier tests (or the date) left: with
      // the parent away, making a partition of it fails, and so does an insert into it.
      await database.rows(sql`alter table request_log rename to request_log_away`);
      try {
        for (let i = 0; i < 250; i += 1) recorder.record(seen(now + i, 'key_buffer'));
        expect(await dropped()).toBe(150);
        // the writes fail while the table is away; the 100 are kept for the next one
        await vi.waitFor(async () => expect(await failedWrites()).toBeGreaterThanOrEqual(3), {
          timeout: 5_000,
          interval: 20,
        });
        // still full: what arrives meanwhile is dropped and counted
        recorder.record(seen(now + 300, 'key_buffer'));
        expect(await dropped()).toBe(151);
      } finally {
        await database.rows(sql`alter table request_log_away rename to request_log`);
      }
      await vi.waitFor(async () => expect(await rowsOf('key_buffer')).toHaveLength(100), {
        timeout: 5_000,
        interval: 20,
      });
      await recorder.close();
      expect(await dropped()).toBe(151);
      // a streak of failed flushes is one line without a stack or SQL, and its end is one more
      const failureLines = lines.filter((line) =>
        String(line.msg).startsWith('could not write the request log'),
      );
      expect(failureLines).toHaveLength(1);
      expect(failureLines[0]).toMatchObject({ level: 40, requests: 100 });
      expect(JSON.stringify(failureLines[0])).not.toMatch(/stack|insert into|create table/i);
      const recovered = lines.filter((line) => line.msg === 'the request log is written again');
      expect(recovered).toHaveLength(1);
      expect(recovered[0]).toMatchObject({ dropped: 1 });
      expect(Number(recovered[0]!.failedFlushes)).toBeGreaterThanOrEqual(3);
    });

    it(`makes a partition for each day before its first row, and drops the days older than ${REQUEST_LOG_DAYS} days whole`, async () => {
      // Every partition goes first, whatever the earlier tests or today's date made: what is
      // listed afterwards is this test's alone, named from the clock it injects.
      for (const name of await partitions()) await database.rows(sql.raw(`drop table "${name}"`));
      const now = Date.UTC(2026, 10, 25, 12);
      const day = (daysFromNow: number) => partitionName(dayOf(now + daysFromNow * DAY));
      const recorder = new RequestLogRecorder(database, logger, {
        flushEveryMs: 60_000,
        now: () => new Date(now),
      });
      // rows of 9 and 8 days ago, of the day 7 days ago (partly within the 7 days), and of today
      for (const daysAgo of [9, 8, 7, 0]) {
        for (let i = 0; i < 3; i += 1)
          recorder.record(
            seen(now - daysAgo * DAY + i, 'key_prune', { requestId: `req_${daysAgo}_${i}` }),
          );
      }
      // the first flush writes them (making their days' partitions, and tomorrow's), then drops
      // the days past keeping
      await recorder.flush();
      expect(await partitions()).toEqual([day(-7), day(0), day(1)]);
      const left = await rowsOf('key_prune');
      expect(left.map((row) => row.request_id).sort()).toEqual([
        'req_0_0',
        'req_0_1',
        'req_0_2',
        'req_7_0',
        'req_7_1',
        'req_7_2',
      ]);
      // later prunes drop what has come past keeping since
      await ensurePartitions(database, [dayOf(now - 10 * DAY)]);
      expect(await recorder.prune(new Date(now))).toEqual([day(-10)]);
      expect(await recorder.prune(new Date(now + DAY))).toEqual([day(-7)]);
      // a partition gone from under the recorder is made again
      await database.rows(sql.raw(`drop table "${day(0)}"`));
      recorder.record(seen(now, 'key_prune', { requestId: 'req_again' }));
      await recorder.flush();
      await recorder.flush();
      await vi.waitFor(
        async () =>
          expect((await rowsOf('key_prune')).map((row) => row.request_id)).toContain('req_again'),
        { timeout: 5_000, interval: 20 },
      );
      await recorder.close();
    });
  });
}

/**
 * The request log never holds a key, a password or a session token, wherever a request carries
 * one: the path, the query (a known parameter's value, an unknown one's, a parameter's name),
 * a header (X-Request-Id, Cookie, a header of its own, Referer) or the body.
 */
describe('the request log and secrets', () => {
  let api: RunningApi;
  let key: string;
  let keyId: string;
  let browser: DashboardClient;
  const password = 'Correct9Horse!Battery';
  let sessionToken: string;

  beforeAll(async () => {
    api = await startApi('pglite', { dashboard: {} });
    await buildFixtureIndex(api.test.database);
    const account = await createAccount(api.test.database, {
      email: 'secrets@example.com',
      planId: 'pro',
      at: systemClock.now(),
    });
    browser = new DashboardClient(api.baseUrl);
    expect(
      (
        await browser.post(
          `/dashboard/set-password/${await issueLink(api.test.database, account.id, systemClock.now())}`,
          { password },
        )
      ).status,
    ).toBe(303);
    sessionToken = decodeURIComponent(/di_session=([^;]+)/.exec(browser.cookieHeader)![1]!);
    key = shownKey(await (await postNewKey(browser, { name: 'carrier' })).page.text())!;
    keyId = (
      await api.test.database.rows<{ id: string }>(
        sql`select id from api_keys where name = 'carrier'`,
      )
    )[0]!.id;
  });
  afterAll(async () => {
    await api?.close();
  });

  /** One request exactly as given: any method, path, headers and body (fetch sends no body with GET). */
  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(api.baseUrl);
      const req = httpRequest(
        {
          host: hostname,
          port,
          method,
          path,
          headers: {
            ...headers,
            ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  it('holds no key, password or session token from any place in any request', async () => {
    console.info(
      `request log secrets: seed ${SEED}, ${RUNS} runs; PROPERTY_SEED=${SEED} repeats them`,
    );
    const used = new Set<string>([key, password, sessionToken]);
    // secrets of each kind: the real ones, and others of the same shape (a key in a URL is revoked
    // as leaked, so the carrying key itself goes only where keys belong, in Authorization)
    const secret = fc.oneof(
      fc.constant(password),
      fc.constant(sessionToken),
      fc.constantFrom('live', 'test').map((environment) => generateApiKey(environment)),
      fc
        .uint8Array({ minLength: 32, maxLength: 32 })
        .map((bytes) => Buffer.from(bytes).toString('base64url')),
      fc
        .tuple(
          fc.stringMatching(/^[A-Za-z0-9]{8,16}$/),
          fc.constantFrom('!', '#', '$', '%', '&', '*', '?', '@', '^', '~', '/', '=', '+', ';'),
          fc.stringMatching(/^[A-Za-z0-9]{3,8}$/),
        )
        .map(([a, s, b]) => `${a}${s}${b}`),
    );
    const place = fc.constantFrom(
      'path',
      'search',
      'known value',
      'unknown value',
      'name',
      'x-request-id',
      'cookie',
      'header',
      'referer',
      'body',
    );
    let logged = 0;
    await fc.assert(
      fc.asyncProperty(
        secret,
        place,
        fc.constantFrom('GET', 'POST', 'HEAD'),
        async (value, where, method) => {
          used.add(value);
          const encoded = encodeURIComponent(value);
          const path =
            {
              path: `/api/v1/domains/${encoded}`,
              search: `/api/v1/domains?search=${encoded}&status=all`,
              'known value': `/api/v1/domains?tld=${encoded}`,
              'unknown value': `/api/v1/domains?note=${encoded}`,
              name: `/api/v1/domains?${encoded}=1`,
            }[where as string] ?? '/api/v1/domains?status=all&limit=10';
          const headers: Record<string, string> = { authorization: `Bearer ${key}` };
          if (where === 'x-request-id') headers['x-request-id'] = value;
          if (where === 'cookie') headers.cookie = `di_session=${encoded}`;
          if (where === 'header') headers['x-secret'] = value.replace(/[^\x21-\x7e]/g, '');
          if (where === 'referer')
            headers.referer = `https://example.com/callback?token=${encoded}`;
          const body =
            where === 'body' ? JSON.stringify({ password: value, key: value }) : undefined;
          if (body !== undefined) headers['content-type'] = 'application/json';
          await send(method, path, headers, body);
          logged += 1;
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    await api.requestLog!.flush();
    const rows = await api.test.database.db.select().from(requestLog);
    // the requests were logged (the property could not hold by logging nothing); not those refused
    // before authentication (a key-like query parameter) or taken by no route (POST)
    expect(rows.filter((row) => row.keyId === keyId).length).toBeGreaterThan(logged / 4);
    const everything = JSON.stringify(rows);
    const page = await (await browser.get(`/dashboard/keys/${keyId}/requests`)).text();
    for (const secretValue of used) {
      for (const form of new Set([secretValue, encodeURIComponent(secretValue)])) {
        expect(everything).not.toContain(form);
        expect(page).not.toContain(form);
      }
    }
  });
});
