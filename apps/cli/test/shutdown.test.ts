import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from '@domain-index/db';
import { createTestDatabase, postgresTestEngine, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auctionRecord } from '@domain-index/test-support/feeds';
import { startFeedServer, type FeedServer } from '@domain-index/test-support/feed-server';
import { pgbouncerSkipped, startPgBouncer, type PgBouncer } from './support/pgbouncer';
import { startCommand, startServe, type ServeProcess } from './support/processes';
import { freePort, until } from '@domain-index/test-support/waiting';
import { OwnRedis, testRedisUrl } from '@domain-index/test-support/redis';
import { runCli } from './support/run-cli';
import { startStallingProxy, type StallingProxy } from './support/stalling-proxy';

const postgresSkipped = postgresTestEngine().skip;

/** The shutdown budget every process here gets: short, so that a hang shows as a failure. */
const SHUTDOWN_TIMEOUT_MS = 3_000;
/**
 * What a loaded 2-core machine may add to a process's own deadline before it is gone: wide
 * enough for a stalled CI runner, and still far below what a process that missed its deadline
 * would take (a 60 s query timeout, a 60 s drain).
 */
const EXIT_SLACK_MS = 5_000;

/** Sends `signal` and resolves with the exit code and how long the process took to be gone. */
async function signalAndTime(started: ServeProcess, signal: NodeJS.Signals): Promise<{ code: number | null; ms: number }> {
  const sent = performance.now();
  started.child.kill(signal);
  const code = await started.exited;
  return { code, ms: performance.now() - sent };
}

async function listening(started: ServeProcess, port: number): Promise<void> {
  await until('serve listens', async () => {
    if (started.child.exitCode !== null) throw new Error(`serve exited early:\n${started.output()}`);
    return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200;
  }, 90_000);
}

/** The JSON log lines a process wrote with this message. */
function logLines(started: ServeProcess, msg: string): Record<string, unknown>[] {
  return started
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);
}

describe.skipIf(postgresSkipped)('serve ends within SHUTDOWN_TIMEOUT_MS of SIGTERM', () => {
  let test: TestDatabase;
  const running: ServeProcess[] = [];
  const start = (env: Record<string, string>) => {
    const started = startServe({ DATABASE_URL: test.url!, HOST: '127.0.0.1', LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS), ...env });
    running.push(started);
    return started;
  };

  let key = '';
  let keyId = '';

  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    key = (await runCli(['keys', 'create', '--plan', 'pro'], { DATABASE_URL: test.url! })).stdout.trim();
    keyId = (await test.database.rows<{ id: string }>(sql`select id from api_keys order by created_at desc limit 1`))[0]!.id;
  });
  const stats = (port: number) => fetch(`http://127.0.0.1:${port}/api/v1/stats`, { headers: { Authorization: `Bearer ${key}` } });
  afterAll(async () => {
    for (const started of running) if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
    await test?.dispose();
  });

  it.skipIf(testRedisUrl() === undefined)('exits 0 within the timeout after its Redis went away', async () => {
    const redis = await OwnRedis.start();
    try {
      const port = await freePort();
      const serve = start({ PORT: String(port), REDIS_URL: redis.url });
      await listening(serve, port);
      await redis.stop();
      // the limiters notice: their clients are reconnecting now
      await until('a request is refused for want of Redis', async () => (await stats(port)).status === 503, 10_000);
      const { code, ms } = await signalAndTime(serve, 'SIGTERM');
      expect({ code, output: code === 0 ? '' : serve.output() }).toEqual({ code: 0, output: '' });
      expect(ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS + EXIT_SLACK_MS);
      expect(logLines(serve, 'stopped')).toHaveLength(1);
    } finally {
      await redis.stop();
    }
  });

  it('writes the request log rows still pending before it exits', async () => {
    const [before] = await test.database.rows<{ count: number }>(sql`select count(*)::int as count from request_log where key_id = ${keyId}`);
    const port = await freePort();
    const serve = start({ PORT: String(port) });
    await listening(serve, port);
    for (let i = 0; i < 5; i += 1) expect((await stats(port)).status).toBe(200);
    // at once, inside the recorder's 1 s flush interval
    const { code, ms } = await signalAndTime(serve, 'SIGTERM');
    expect(code).toBe(0);
    expect(ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS + EXIT_SLACK_MS);
    const [row] = await test.database.rows<{ count: number }>(sql`select count(*)::int as count from request_log where key_id = ${keyId}`);
    expect(row!.count - before!.count).toBe(5);
  });

  it('exits 1 at the deadline, with one line naming it, when its database stops answering', async () => {
    const target = new URL(test.url!);
    const proxy: StallingProxy = await startStallingProxy({ host: target.hostname, port: Number(target.port || 5432) });
    try {
      const through = new URL(test.url!);
      through.port = String(proxy.port);
      const port = await freePort();
      const serve = start({ PORT: String(port), DATABASE_URL: through.toString(), QUERY_TIMEOUT_MS: '60000' });
      await listening(serve, port);
      // rows waiting for the request log's next flush when the database stops answering
      for (let i = 0; i < 3; i += 1) expect((await stats(port)).status).toBe(200);
      proxy.stall();
      const { code, ms } = await signalAndTime(serve, 'SIGTERM');
      expect(code).toBe(1);
      expect(ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS + EXIT_SLACK_MS);
      const deadline = logLines(serve, `shutdown deadline reached (${SHUTDOWN_TIMEOUT_MS} ms after SIGTERM): exiting with work unfinished`);
      expect(deadline).toHaveLength(1);
      expect(deadline[0]!.level).toBe(50);
    } finally {
      proxy.resume();
      await proxy.close();
    }
  });

  it('exits at once on a second signal', async () => {
    const port = await freePort();
    // a long drain: the first SIGTERM alone would keep it serving for 60 s
    const serve = start({ PORT: String(port), SHUTDOWN_DELAY_MS: '60000' });
    await listening(serve, port);
    serve.child.kill('SIGTERM');
    await until('it drains', () => serve.output().includes('draining'), 10_000);
    const { code, ms } = await signalAndTime(serve, 'SIGINT');
    expect(code).toBe(1);
    expect(ms).toBeLessThan(EXIT_SLACK_MS);
    expect(logLines(serve, 'second SIGINT while stopping: exiting at once')).toHaveLength(1);
  });
});

describe.skipIf(postgresSkipped || pgbouncerSkipped())('a sync worker whose database is PAUSEd in PgBouncer', () => {
  let test: TestDatabase;
  let pooler: PgBouncer;
  let feeds: FeedServer;
  let sync: ServeProcess;
  let admin = '';
  const dir = mkdtempSync(join(tmpdir(), 'di-shutdown-'));

  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    const target = new URL(test.url!);
    pooler = await startPgBouncer({ target: { host: target.hostname, port: Number(target.port || 5432) }, mode: 'transaction' });
    feeds = await startFeedServer([{ status: 200, body: `${JSON.stringify(auctionRecord('paused.com'))}\n` }]);
    const sourcesFile = join(dir, 'sources.json');
    writeFileSync(sourcesFile, JSON.stringify([{ id: 'loop', name: 'Loopback', everyMinutes: 60, feed: feeds.url, format: 'jsonl' }]));
    const adminPort = await freePort();
    admin = `http://127.0.0.1:${adminPort}`;
    sync = startCommand(['sync'], {
      DATABASE_URL: pooler.url(target.pathname.slice(1)),
      SOURCES_FILE: sourcesFile,
      ADMIN_PORT: String(adminPort),
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
    await until('the worker has applied its source and is ready', async () => {
      if (sync.child.exitCode !== null) throw new Error(`sync exited early:\n${sync.output()}`);
      return sync.output().includes('sync batch applied') && (await fetch(`${admin}/readyz`).catch(() => undefined))?.status === 200;
    }, 90_000);
  });
  afterAll(async () => {
    if (sync?.child.exitCode === null) sync.child.kill('SIGKILL');
    await pooler?.admin(`RESUME ${new URL(test.url!).pathname.slice(1)}`).catch(() => undefined);
    await pooler?.stop();
    await feeds?.close();
    await test?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers /metrics inside a scrape timeout, not ready and its outbox gauges stale, then exits within SHUTDOWN_TIMEOUT_MS of SIGTERM', async () => {
    const metrics = async () => {
      const started = performance.now();
      const response = await fetch(`${admin}/metrics`);
      return { status: response.status, text: await response.text(), ms: performance.now() - started };
    };
    const before = await metrics();
    expect(before.text).toContain('domain_index_metrics_stale{collector="webhook_outbox"} 0');
    expect(before.text).toContain('domain_index_ready 1');
    await pooler.admin(`PAUSE ${new URL(test.url!).pathname.slice(1)}`);
    // past the second for which readiness and the outbox read keep their last answers
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    for (const round of [1, 2, 3]) {
      const during = await metrics();
      expect({ round, status: during.status }).toEqual({ round, status: 200 });
      // each read gives up after its second (the values stay stale): well inside Prometheus'
      // default 10 s scrape timeout, where an unbounded read would wait on the paused pooler
      expect(during.ms, `round ${round}`).toBeLessThan(8_000);
      expect(during.text).toContain('domain_index_ready 0');
      expect(during.text).toContain('domain_index_metrics_stale{collector="webhook_outbox"} 1');
      // the last values read, not an empty outbox
      expect(during.text).toMatch(/^domain_index_webhook_outbox_pending 0$/m);
    }
    const { code, ms } = await signalAndTime(sync, 'SIGTERM');
    expect(code).not.toBeNull();
    expect(ms).toBeLessThan(SHUTDOWN_TIMEOUT_MS + EXIT_SLACK_MS);
  });
});
