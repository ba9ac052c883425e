import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, sql, type Database } from '@domain-index/db';
import { ownClustersSkipped, startCluster, type PostgresCluster } from '@domain-index/db/clusters';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgbouncerSkipped, startPgBouncer, type PgBouncer } from './support/pgbouncer';
import { startServe, type ServeProcess } from './support/processes';
import { freePort, until } from '@domain-index/test-support/waiting';
import { runCli } from './support/run-cli';

/** A feed of names `<prefix><i>pool.com` priced by `price(i)`, as JSON lines. */
function feed(names: number[], price: (i: number) => number, prefix = 'name'): string {
  return `${names.map((i) => JSON.stringify({ domain_name: `${prefix}${i}pool.com`, status: 'auction', current_bid: price(i), auction_end_time: '2099-01-01T00:00:00Z' })).join('\n')}\n`;
}
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);

/** What the index holds of one source, read straight from PostgreSQL (not through the pooler). */
async function indexed(database: Database, source = 'bidhaus'): Promise<{ count: number; sum: number }> {
  const [row] = await database.rows<{ count: number; sum: string | null }>(sql`select count(*)::int as count, sum(current_bid)::text as sum from listings where source = ${source}`);
  return { count: row?.count ?? 0, sum: Number(row?.sum ?? 0) };
}

const skipped = ownClustersSkipped() || pgbouncerSkipped();

describe.skipIf(skipped)('through PgBouncer in transaction mode (?pgbouncer=true)', () => {
  let cluster: PostgresCluster;
  let pooler: PgBouncer;
  let direct: Database;
  const dir = mkdtempSync(join(tmpdir(), 'di-pgbouncer-test-'));
  let env: Record<string, string>;

  beforeAll(async () => {
    // log every error statement, so that a "prepared statement does not exist" cannot pass unseen
    cluster = await startCluster(["log_min_error_statement = 'error'"]);
    const admin = await openDatabase({ databaseUrl: cluster.url(), maxConnections: 1 });
    await admin.rows(sql`create database api`);
    await admin.close();
    direct = await openDatabase({ databaseUrl: cluster.url('api'), maxConnections: 2 });
    // round robin: consecutive transactions of one client land on different server connections,
    // which is what broke named statements and session locks
    pooler = await startPgBouncer({ target: { host: '127.0.0.1', port: cluster.port }, mode: 'transaction', poolSize: 4, roundRobin: true });
    env = { DATABASE_URL: pooler.url('api'), LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    await direct?.close();
    await pooler?.stop();
    await cluster?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('migrates, says what it applied, then that nothing is pending', async () => {
    const first = await runCli(['migrate'], env);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^applied \d+ migrations to the PostgreSQL at 127\.0\.0\.1:\d+\/api: 0000_init, .*0013_work_tables/);
    const second = await runCli(['migrate'], env);
    expect(second.stdout).toBe(`no migration pending; the PostgreSQL at 127.0.0.1:${pooler.port}/api is up to date\n`);
  });

  it('applies a first load and an incremental import with exact counts, and what it says is what the index holds', async () => {
    const first = join(dir, 'first.jsonl');
    writeFileSync(first, feed(range(0, 3000), (i) => i + 1));
    const loaded = await runCli(['import', '--source', 'bidhaus', first], env);
    expect(loaded.stdout).toMatch(/^bidhaus: applied: read 3000, inserted 3000, updated 0, unchanged 0, removed 0, rejected 0, /);
    expect(loaded.status).toBe(0);
    expect(await indexed(direct)).toEqual({ count: 3000, sum: (3000 * 3001) / 2 });

    // 100 removed, 50 added, every other remaining price changed
    const second = join(dir, 'second.jsonl');
    writeFileSync(second, feed([...range(100, 3000), ...range(5000, 5050)], (i) => (i % 2 === 0 ? i + 2 : i + 1)));
    const changed = await runCli(['import', '--source', 'bidhaus', second], env);
    expect(changed.stdout).toMatch(/^bidhaus: applied: read 2950, inserted 50, updated 1450, unchanged 1450, removed 100, rejected 0, /);
    const expectedSum = [...range(100, 3000), ...range(5000, 5050)].reduce((sum, i) => sum + (i % 2 === 0 ? i + 2 : i + 1), 0);
    expect(await indexed(direct)).toEqual({ count: 2950, sum: expectedSum });
  });

  it('lets one of two sync workers apply a source and the other skip it, and leaves the index exact', async () => {
    const body = feed(range(0, 2000), () => 7, 'sync');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let requests = 0;
    // The feed is answered only once the other worker has finished: the first worker holds the
    // source's lock through the whole wait, so the second must find it taken.
    const server: Server = createServer((_req, res) => {
      requests += 1;
      void released.then(() => res.end(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sourcesFile = join(dir, 'sources.json');
    writeFileSync(sourcesFile, JSON.stringify([{ id: 'namemarket', name: 'NameMarket', everyMinutes: 60, format: 'jsonl', feed: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.jsonl` }]));
    try {
      const workers = [0, 1].map(() => runCli(['sync', '--once', '--source', 'namemarket'], { ...env, SOURCES_FILE: sourcesFile }));
      const first = await Promise.race(workers);
      release();
      const runs = await Promise.all(workers);
      expect(first.stdout).toBe('namemarket: SKIPPED: another worker is syncing it\n');
      expect(first.status).toBe(1);
      const applied = runs.filter((run) => run.stdout.startsWith('namemarket: applied: read 2000, inserted 2000, updated 0, unchanged 0, removed 0,'));
      expect(applied).toHaveLength(1);
      expect(applied[0]!.status).toBe(0);
      expect(requests).toBe(1);
      expect(await indexed(direct, 'namemarket')).toEqual({ count: 2000, sum: 14_000 });
    } finally {
      release();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('serves 500 searches and lookups with exact counts, and PostgreSQL never saw a prepared statement go missing', async () => {
    const key = (await runCli(['keys', 'create', '--plan', 'pro', '--name', 'pooler'], env)).stdout.trim();
    expect(key).toMatch(/^dix_live_/);
    const port = await freePort();
    const api: ServeProcess = startServe({ ...env, PORT: String(port), HOST: '127.0.0.1', QUERY_TIMEOUT_MS: '5000' });
    try {
      await until('the API listens', () => api.stdout().includes('listening'), 60_000);
      const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`, { headers: { Authorization: `Bearer ${key}` } });
      const answers: { path: string; status: number; ok: boolean }[] = [];
      for (let i = 0; i < 500; i += 1) {
        const n = 100 + ((i * 37) % 2900);
        if (i % 2 === 0) {
          const response = await get(`/api/v1/domains/name${n}pool.com`);
          const body = (await response.json()) as { data?: { domain_name: string; current_bid: number } };
          answers.push({ path: `lookup ${n}`, status: response.status, ok: body.data?.domain_name === `name${n}pool.com` && body.data.current_bid === (n % 2 === 0 ? n + 2 : n + 1) });
        } else {
          const term = `e${n % 10}`;
          const response = await get(`/api/v1/domains?status=all&search=${term}&limit=10`);
          const body = (await response.json()) as { total?: { value: number; accuracy: string } };
          const [expected] = await direct.rows<{ n: number }>(sql`select count(*)::int as n from listings where domain_name like ${`%${term}%`}`);
          answers.push({ path: `search ${term}`, status: response.status, ok: body.total?.accuracy === 'exact' && body.total.value === expected!.n });
        }
      }
      expect(answers.filter((answer) => answer.status !== 200 || !answer.ok)).toEqual([]);
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }
    expect(await cluster.log()).not.toMatch(/prepared statement/);
    // every request is in the key's request log, written by COPY through the pooler (the rest at shutdown)
    const [logged] = await direct.rows<{ n: number }>(
      sql`select count(*)::int as n from request_log r join api_keys k on k.id = r.key_id where k.name = 'pooler'`,
    );
    expect(logged!.n).toBe(500);
  });

  it('answers 503 at QUERY_TIMEOUT_MS on every endpoint while PgBouncer is paused, and 200 again after RESUME', async () => {
    const key = (await runCli(['keys', 'create', '--plan', 'pro'], env)).stdout.trim();
    const port = await freePort();
    const api = startServe({ ...env, PORT: String(port), HOST: '127.0.0.1', QUERY_TIMEOUT_MS: '2000' });
    const paths = ['/api/v1/domains', '/api/v1/domains?status=all&search=name1', '/api/v1/domains/name101pool.com', '/api/v1/stats'];
    const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`, { headers: { Authorization: `Bearer ${key}` } });
    try {
      await until('the API listens', () => api.stdout().includes('listening'), 60_000);
      for (const path of paths) expect((await get(path)).status, path).toBe(200);
      await pooler.admin('PAUSE api');
      for (const path of paths) {
        const started = performance.now();
        const response = await get(path);
        const seconds = (performance.now() - started) / 1000;
        expect(response.status, path).toBe(503);
        expect(response.headers.get('retry-after'), path).toMatch(/^\d+$/);
        expect(['query_failed', 'key_lookup_unavailable', 'plan_lookup_unavailable'], path).toContain(((await response.json()) as { error: { code: string } }).error.code);
        // at the request's deadline (QUERY_TIMEOUT_MS), never the paused pooler's forever; the
        // margin is a loaded machine's
        expect(seconds, path).toBeLessThan(15);
      }
      await pooler.admin('RESUME api');
      // the pool recovers by itself, without a restart
      for (const path of paths) {
        await until(`${path} answers 200 again`, async () => (await get(path)).status === 200, 30_000);
      }
    } catch (error) {
      console.error(api.output());
      throw error;
    } finally {
      await pooler.admin('RESUME api').catch(() => undefined);
      api.child.kill('SIGTERM');
      await api.exited;
    }
  });
});

describe.skipIf(skipped)('through PgBouncer without ?pgbouncer=true, or in session mode', () => {
  let cluster: PostgresCluster;
  let direct: Database;
  const dir = mkdtempSync(join(tmpdir(), 'di-pgbouncer-plain-'));

  beforeAll(async () => {
    cluster = await startCluster();
    const admin = await openDatabase({ databaseUrl: cluster.url(), maxConnections: 1 });
    await admin.rows(sql`create database api`);
    await admin.close();
    direct = await openDatabase({ databaseUrl: cluster.url('api'), maxConnections: 2 });
    expect((await runCli(['migrate'], { DATABASE_URL: cluster.url('api') })).status).toBe(0);
    writeFileSync(join(dir, 'first.jsonl'), feed(range(0, 500), () => 3));
    expect((await runCli(['import', '--source', 'bidhaus', join(dir, 'first.jsonl')], { DATABASE_URL: cluster.url('api') })).status).toBe(0);
  });
  afterAll(async () => {
    await direct?.close();
    await cluster?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops an import at once with one line naming ?pgbouncer=true, and applies nothing', async () => {
    const pooler = await startPgBouncer({ target: { host: '127.0.0.1', port: cluster.port }, mode: 'transaction' });
    try {
      writeFileSync(join(dir, 'second.jsonl'), feed(range(0, 800), () => 9));
      const run = await runCli(['import', '--source', 'bidhaus', join(dir, 'second.jsonl')], { DATABASE_URL: pooler.url('api', false) });
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `domain-index: cannot open the PostgreSQL at 127.0.0.1:${pooler.port}/api: the server refused a connection setting (unsupported startup parameter: jit): if DATABASE_URL points at PgBouncer (or another pooler) in transaction mode, add ?pgbouncer=true to it\n`,
      );
      expect(run.status).toBe(2);
      expect(await indexed(direct)).toEqual({ count: 500, sum: 1500 });
    } finally {
      await pooler.stop();
    }
  });

  it('works in session mode without the flag as on a direct connection, and lets PAUSE complete once idle connections are released', async () => {
    const pooler = await startPgBouncer({
      target: { host: '127.0.0.1', port: cluster.port },
      mode: 'session',
      ignoreStartupParameters: ['jit', 'extra_float_digits', 'statement_timeout'],
    });
    const key = (await runCli(['keys', 'create', '--plan', 'pro'], { DATABASE_URL: cluster.url('api') })).stdout.trim();
    const port = await freePort();
    const api = startServe({ DATABASE_URL: pooler.url('api', false), PORT: String(port), HOST: '127.0.0.1', DATABASE_IDLE_TIMEOUT_MS: '1000', LOG_LEVEL: 'warn' });
    try {
      await until('the API listens', () => api.stdout().includes('listening'), 60_000);
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/domains?status=all&limit=10`, { headers: { Authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { total: { value: number } }).total.value).toBe(500);
      // In session mode PAUSE waits until every client gives its server connection back: it
      // completes only because the API closes connections idle for DATABASE_IDLE_TIMEOUT_MS.
      const paused = pooler.admin('PAUSE api');
      await expect(paused).resolves.toMatch(/PAUSE/);
      await pooler.admin('RESUME api');
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
      await pooler.stop();
    }
  });
});
