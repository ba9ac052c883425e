import { setTimeout as sleep } from 'node:timers/promises';
import {
  classifyDatabaseFailure,
  migrateDatabase,
  openDatabase,
  plans,
  sql,
  type Database,
} from '@domain-index/db';
import {
  ownClustersSkipped,
  startCluster,
  startReplica,
  type PostgresCluster,
} from '@domain-index/db/clusters';
import type { TestDatabase } from '@domain-index/db/testing';
import type { SourceConfig } from '@domain-index/indexer';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '@domain-index/accounts/key-store';
import { systemClock } from '@domain-index/runtime/clock';
import { importBatch } from '@domain-index/worker/indexing/import-batch';
import { purgeEnded } from '@domain-index/worker/indexing/purge';
import { createLogger } from '@domain-index/runtime/logger';
import { ApiMetrics, STATEMENT_KINDS, WRITE_KINDS } from '@domain-index/api/ops/api-metrics';
import { ReplicaRouter } from '@domain-index/api/replicas/replica-router';
import { auctionRecord, jsonlFeed } from '@domain-index/test-support/feeds';
import { startServe, type ServeProcess } from './support/processes';
import { freePort, until } from '@domain-index/test-support/waiting';
import { startTcpProxy } from './support/tcp-proxy';
import { parseExposition, total } from './support/prometheus';
import { startApi, TEST_PLAN } from '@domain-index/api/test/support/start-api';

const alpha: SourceConfig = {
  id: 'alpha',
  name: 'Alpha',
  everyMinutes: 60,
  feed: 'alpha.jsonl',
  format: 'jsonl',
};
const beta: SourceConfig = {
  id: 'beta',
  name: 'Beta',
  everyMinutes: 60,
  feed: 'beta.jsonl',
  format: 'jsonl',
};
const silent = createLogger('silent');

/** `count` auction records named `prefix<i>.com`, prices spread out so that sorts interleave them. */
const records = (
  prefix: string,
  count: number,
  extra: (i: number) => Record<string, unknown> = () => ({}),
) =>
  Array.from({ length: count }, (_, i) =>
    auctionRecord(`${prefix}${i}.com`, { current_bid: ((i * 37) % 500) + 1, ...extra(i) }),
  );

async function load(
  database: Database,
  source: SourceConfig,
  rows: Record<string, unknown>[],
): Promise<void> {
  const summary = await importBatch({
    database,
    source,
    input: jsonlFeed(rows),
    clock: systemClock,
  });
  if (summary.outcome !== 'applied')
    throw new Error(`batch ${summary.outcome}: ${summary.reason ?? ''}`);
}

/** Calls recorded by pg_stat_statements on one server for statements matching `pattern`, our own probes excluded. */
async function calls(database: Database, pattern: string): Promise<number> {
  const [row] = await database.rows<{ n: number }>(sql`
    select coalesce(sum(calls), 0)::int as n from pg_stat_statements
    where query ilike ${pattern} and query not ilike '%pg_stat_statements%'`);
  return row!.n;
}

/** Reads of `kind` a router sent to `node`, from its metrics. */
async function readsOn(metrics: ApiMetrics, node: string, kind = 'search_page'): Promise<number> {
  const { values } = await metrics.queryDuration.get();
  return (
    values.find(
      (v) =>
        v.labels.node === node &&
        v.labels.kind === kind &&
        v.metricName === 'domain_index_db_query_duration_seconds_count',
    )?.value ?? 0
  );
}

/** Which server answered: a replica is in recovery. */
const whichNode = (router: ReplicaRouter) =>
  router.read('stats', async (database) =>
    (await database.rows<{ replica: boolean }>(sql`select pg_is_in_recovery() as replica`))[0]!
      .replica
      ? 'replica'
      : 'primary',
  );

/** A migrated database on `cluster`, with the unmetered test plan. */
async function createDatabaseOn(cluster: PostgresCluster, name: string): Promise<Database> {
  const admin = await openDatabase({ databaseUrl: cluster.url(), maxConnections: 1 });
  await admin.rows(sql.raw(`create database ${name}`));
  await admin.close();
  const database = await openDatabase({ databaseUrl: cluster.url(name), maxConnections: 6 });
  await migrateDatabase(database);
  await database.db.insert(plans).values({
    id: TEST_PLAN,
    requestsPerWindow: 1_000_000_000,
    windowSeconds: 3600,
    description: 'tests',
  });
  return database;
}

/**
 * Waits until the replica has replayed everything the primary has written so far. On a timeout
 * the error says where replay stands and quotes the replica's log (the suite's replica logs
 * recovery conflict waits), so a replica held up in CI can be told from a slow one.
 */
async function caughtUp(
  primary: Database,
  replica: Database,
  ms = 60_000,
  cluster?: PostgresCluster,
): Promise<void> {
  const [{ lsn }] = (await primary.rows<{ lsn: string }>(
    sql`select pg_current_wal_lsn()::text as lsn`,
  )) as [{ lsn: string }];
  let replayed = 'unknown';
  const started = Date.now();
  try {
    await until(
      'the replica catches up',
      async () => {
        const [row] = await replica.rows<{ behind: boolean; replayed: string }>(
          sql`select pg_last_wal_replay_lsn() < ${lsn}::pg_lsn as behind, pg_last_wal_replay_lsn()::text as replayed`,
        );
        replayed = row?.replayed ?? 'unknown';
        return row?.behind === false;
      },
      ms,
    );
  } catch (error) {
    throw new Error(
      `${(error as Error).message}: replayed ${replayed}, primary at ${lsn}${await logTail(cluster)}`,
    );
  }
  // a slow catch-up passes, but says so in the output: CI once saw replay held up for 30 s
  if (Date.now() - started > 10_000)
    console.warn(
      `the replica took ${Date.now() - started} ms to catch up${await logTail(cluster)}`,
    );
}

/** The last lines of a cluster's server log, for a failure message. */
async function logTail(cluster: PostgresCluster | undefined): Promise<string> {
  if (cluster === undefined) return '';
  const lines = (await cluster.log()).trimEnd().split('\n');
  return `\nits log, last ${Math.min(lines.length, 30)} lines:\n${lines.slice(-30).join('\n')}`;
}

/**
 * A connection to a database on the suite's replica that has answered a first statement. A
 * connection made under load just after the replica replayed the database's creation was once
 * closed under the driver (write EPIPE, in CI beside a benchmark); such a refusal of the
 * connection itself is retried for up to 30 s, logged. Nothing else is: the tests' behaviour
 * starts after this.
 */
async function replicaConnection(url: string, maxConnections = 1): Promise<Database> {
  for (const end = Date.now() + 30_000; ;) {
    const database = await openDatabase({ databaseUrl: url, maxConnections });
    try {
      await database.rows(sql`select 1`);
      return database;
    } catch (error) {
      await database.close().catch(() => undefined);
      // the connection refused or closed (EPIPE, ECONNRESET, 57P03), or the database not yet replayed
      const failure = classifyDatabaseFailure(error);
      if ((failure.kind !== 'unavailable' && failure.sqlstate !== '3D000') || Date.now() > end)
        throw error;
      console.warn(
        `connecting to the replica (${url}) failed (${failure.sqlstate ?? failure.message}); retrying`,
      );
      await sleep(500);
    }
  }
}

function startServeWithReplicas(
  primary: PostgresCluster,
  replica: PostgresCluster,
  env: Record<string, string>,
  adminPort: number,
  port: number,
): ServeProcess {
  return startServe({
    DATABASE_URL: primary.url('api'),
    DATABASE_REPLICA_URLS: replica.url('api'),
    PORT: String(port),
    HOST: '127.0.0.1',
    ADMIN_PORT: String(adminPort),
    LOG_LEVEL: 'warn',
    ...env,
  });
}

async function metricsOf(adminPort: number) {
  return parseExposition(await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text());
}

describe.skipIf(ownClustersSkipped())('reads on PostgreSQL streaming replicas', () => {
  let primary: PostgresCluster;
  let replica: PostgresCluster;
  let primaryDb: Database;
  let replicaDb: Database;
  let key: string;

  beforeAll(async () => {
    // no autovacuum: a test of an idle primary must not see it write; the suites vacuum themselves
    primary = await startCluster([
      "shared_preload_libraries = 'pg_stat_statements'",
      'autovacuum = off',
      // The WAL a replica still needs when it was stopped, or is still catching up, as another
      // replica's base backup makes the primary checkpoint (--checkpoint=fast): without a slot
      // only wal_keep_size keeps it. A CI run lost the first replica that way ("requested WAL
      // segment ... has already been removed") and two tests waited for it in vain.
      "wal_keep_size = '512MB'",
    ]);
    primaryDb = await createDatabaseOn(primary, 'api');
    await primaryDb.rows(sql`create extension pg_stat_statements`);
    await load(primaryDb, alpha, records('alpha', 1_200));
    await load(primaryDb, beta, records('beta', 600));
    ({ key } = await createKey(primaryDb, {
      planId: TEST_PLAN,
      name: 'replica suite',
      environment: 'test',
    }));
    // a search that waits over 300 ms for a lock, or replay that waits on a search, is logged
    replica = await startReplica(primary, [
      'log_lock_waits = on',
      "deadlock_timeout = '300ms'",
      'log_recovery_conflict_waits = on',
    ]);
    replicaDb = await openDatabase({ databaseUrl: replica.url('api'), maxConnections: 2 });
    await caughtUp(primaryDb, replicaDb, 60_000, replica);
  }, 120_000);
  afterAll(async () => {
    await replicaDb.close().catch(() => undefined);
    await primaryDb.close();
    await replica.destroy();
    await primary.destroy();
  });

  describe('serve with DATABASE_REPLICA_URLS', () => {
    let server: ServeProcess;
    let api: string;
    let adminPort: number;
    const get = (path: string, withKey = key) =>
      fetch(`${api}${path}`, { headers: { authorization: `Bearer ${withKey}` } });
    beforeAll(async () => {
      adminPort = await freePort();
      const port = await freePort();
      api = `http://127.0.0.1:${port}`;
      server = startServeWithReplicas(
        primary,
        replica,
        // checked every second: a check may take up to a second on a loaded machine
        { REPLICA_MAX_LAG_MS: '2000', REPLICA_CHECK_INTERVAL_MS: '1000' },
        adminPort,
        port,
      );
      await until(
        'serve listens',
        () => {
          if (server.child.exitCode !== null) throw new Error(`serve exited:\n${server.output()}`);
          return server.stdout().includes('Domain Index API listening on');
        },
        60_000,
      );
      await until(
        'the replica is in use',
        async () =>
          total(await metricsOf(adminPort), 'domain_index_replica_in_use', { node: 'replica1' }) ===
          1,
      );
    }, 90_000);
    afterAll(async () => {
      server.child.kill('SIGTERM');
      await Promise.race([server.exited, sleep(10_000)]);
      server.child.kill('SIGKILL');
    });

    it("sends searches, counts, lookups, key checks and stats to the replica, and none of them to the primary, by each server's own statistics", async () => {
      const paths = [
        ...[
          '',
          '?search=alpha1',
          '?sort=current_bid&order=asc',
          '?min_price=100&max_price=200',
          '?status=all&limit=200',
        ].map((q) => `/api/v1/domains${q}`),
        ...Array.from({ length: 5 }, (_, i) => `/api/v1/domains/alpha${i * 7}.com`),
        '/api/v1/domains/not-listed.com',
        '/api/v1/stats',
      ];
      const inUse = async () =>
        total(await metricsOf(adminPort), 'domain_index_replica_in_use', { node: 'replica1' }) ===
        1;
      // A round during which the server itself says it left the replica out (a check unanswered
      // within its timeout on a loaded machine) rightly reads from the primary: that round is
      // repeated. Any read on the primary without such a line fails the test.
      const voided: string[] = [];
      for (let round = 1; ; round += 1) {
        await until('the replica is in use', inUse);
        await primaryDb.rows(sql`select pg_stat_statements_reset()`);
        await replicaDb.rows(sql`select pg_stat_statements_reset()`);
        const seriesBefore = await metricsOf(adminPort);
        const logMark = server.output().length;
        for (const path of paths) expect((await get(path)).status, path).toBeLessThan(500);
        const said = server.output().slice(logMark);
        if (said.includes('a replica is left out') && round < 3) {
          voided.push(said);
          continue;
        }
        const why = `the server said during the round:\n${said || '(nothing)'}\nearlier rounds repeated: ${voided.length}`;
        expect(await calls(replicaDb, '%listings%'), why).toBeGreaterThanOrEqual(paths.length);
        expect(await calls(replicaDb, '%api_keys%'), why).toBeGreaterThanOrEqual(paths.length);
        // the primary took the writes only (the key's last use, the usage counts), no read
        expect(await calls(primaryDb, '%listings%'), why).toBe(0);
        expect(await calls(primaryDb, 'select%api_keys%'), why).toBe(0);
        const series = await metricsOf(adminPort);
        const grew = (node: string, kind: string) =>
          total(series, 'domain_index_db_query_duration_seconds', { node, kind }) -
          total(seriesBefore, 'domain_index_db_query_duration_seconds', { node, kind });
        expect(grew('replica1', 'search_page'), why).toBeGreaterThanOrEqual(5);
        for (const kind of STATEMENT_KINDS.filter((kind) => !WRITE_KINDS.includes(kind)))
          expect(grew('primary', kind), `${kind}: ${why}`).toBe(0);
        break;
      }
      // /health says so too, once a check has answered since the round
      await until('the replica passes its health check', async () => {
        const health = (await (await fetch(`http://127.0.0.1:${adminPort}/health`)).json()) as {
          checks: Record<string, [{ status: string }]>;
        };
        return health.checks['postgresql:replica1']![0].status === 'pass';
      });
    });

    it('answers every request while the replica is stopped mid-load, and reads return to it once it is back', async () => {
      const statuses: number[] = [];
      let running = true;
      const loops = Array.from({ length: 4 }, async (_, n) => {
        for (let i = 0; running; i += 1) {
          const response = await get(
            i % 2 === 0
              ? `/api/v1/domains?search=alpha${(i + n) % 90}&status=all`
              : `/api/v1/domains/beta${(i * 3 + n) % 600}.com`,
          );
          statuses.push(response.status);
          await response.arrayBuffer();
        }
      });
      await until('the load is answered', () => statuses.length >= 8, 60_000);
      await replica.stop();
      const atStop = statuses.length;
      await until(
        'requests are answered with the replica stopped',
        () => statuses.length >= atStop + 20,
        60_000,
      );
      running = false;
      await Promise.all(loops).catch((error: unknown) => {
        console.log('SERVE OUTPUT', server.output().slice(-3000));
        throw error;
      });
      expect(statuses.length).toBeGreaterThan(20);
      expect(statuses.filter((status) => status >= 500)).toEqual([]);
      let series = await metricsOf(adminPort);
      expect(total(series, 'domain_index_replica_in_use', { node: 'replica1' })).toBe(0);
      const onPrimary = total(series, 'domain_index_db_query_duration_seconds', {
        node: 'primary',
        kind: 'search_page',
      });
      expect(onPrimary).toBeGreaterThan(0);

      await replica.start();
      await until(
        'the replica is in use again',
        async () =>
          total(await metricsOf(adminPort), 'domain_index_replica_in_use', { node: 'replica1' }) ===
          1,
        20_000,
      );
      const before = total(await metricsOf(adminPort), 'domain_index_db_query_duration_seconds', {
        node: 'replica1',
        kind: 'search_page',
      });
      for (let i = 0; i < 5; i += 1)
        expect((await get(`/api/v1/domains?search=beta${i}`)).status).toBe(200);
      series = await metricsOf(adminPort);
      expect(
        total(series, 'domain_index_db_query_duration_seconds', {
          node: 'replica1',
          kind: 'search_page',
        }) - before,
      ).toBe(5);
      expect(
        total(series, 'domain_index_db_query_duration_seconds', {
          node: 'primary',
          kind: 'search_page',
        }),
      ).toBe(onPrimary);
      await replicaDb.close();
      replicaDb = await openDatabase({ databaseUrl: replica.url('api'), maxConnections: 2 });
    }, 60_000);
  });

  describe('a replica behind the primary', () => {
    let lagging: PostgresCluster;
    let laggingDb: Database;
    beforeAll(async () => {
      // every commit reaches this replica 5 s late
      lagging = await startReplica(primary, ["recovery_min_apply_delay = '5s'"]);
      laggingDb = await openDatabase({ databaseUrl: lagging.url('api'), maxConnections: 2 });
      await caughtUp(primaryDb, laggingDb);
    }, 60_000);
    afterAll(async () => {
      await laggingDb.close();
      await lagging.destroy();
    });

    it('is left out of reads while it lags, but not while the primary is merely idle', async () => {
      const router = new ReplicaRouter(
        primaryDb,
        [await openDatabase({ databaseUrl: lagging.url('api'), maxConnections: 2 })],
        new ApiMetrics(new Registry()),
        silent,
        // a check's answer counts for two intervals: 500 ms apart, a loaded machine's late
        // check does not leave a replica that is in step out of a read
        {
          maxLagMs: 1_500,
          checkIntervalMs: 500,
        },
      );
      await router.start();
      try {
        await until(
          'the replica is in use',
          async () => (await whichNode(router)) === 'replica',
          10_000,
        );
        // an idle primary for twice the allowed lag: the replica stays in use throughout
        for (const end = Date.now() + 3_000; Date.now() < end;) {
          expect(await whichNode(router)).toBe('replica');
          await sleep(100);
        }
        // a write the replica will apply 5 s late: it must be left out before it shows the write
        const { id } = await createKey(primaryDb, {
          planId: TEST_PLAN,
          name: 'a write',
          environment: 'test',
        });
        const wroteAt = Date.now();
        const applied = async () =>
          (await laggingDb.rows(sql`select 1 from api_keys where id = ${id}`)).length > 0;
        const reads: { at: number; node: string }[] = [];
        await until(
          'the lagging replica is left out',
          async () => {
            const at = Date.now() - wroteAt;
            const node = await whichNode(router);
            reads.push({ at, node });
            if (node === 'primary') return true;
            if (await applied())
              throw new Error('the replica applied the write while still in use');
            return false;
          },
          20_000,
        );
        // the stated bound (maxLagMs + 2 x checkIntervalMs): no read sent later went to the
        // replica, which had not applied the write (the router's clock decides, not this one's)
        expect(
          reads.filter((read) => read.at >= 1_500 + 2 * 500 && read.node === 'replica'),
        ).toEqual([]);
        const [check] = router.healthChecks()['postgresql:replica1']!;
        expect(check?.status).toBe('warn');
        expect(check?.output).toContain('behind');
        await until(
          'it is used again once it has applied the write',
          async () => (await whichNode(router)) === 'replica',
          10_000,
        );
      } finally {
        await router.close();
      }
    });

    it(`refuses a revoked key within the stated bound (REPLICA_MAX_LAG_MS + 2 x REPLICA_CHECK_INTERVAL_MS), though the replica shows it active for 5 s more`, async () => {
      const { key: doomed, id } = await createKey(primaryDb, {
        planId: TEST_PLAN,
        name: 'to revoke',
        environment: 'test',
      });
      const [adminPort, port] = [await freePort(), await freePort()];
      const server = startServeWithReplicas(
        primary,
        lagging,
        { REPLICA_MAX_LAG_MS: '1000', REPLICA_CHECK_INTERVAL_MS: '200' },
        adminPort,
        port,
      );
      const boundMs = 1_000 + 2 * 200;
      const call = () =>
        fetch(`http://127.0.0.1:${port}/api/v1/domains?limit=10`, {
          headers: { authorization: `Bearer ${doomed}` },
        });
      const inUse = async () =>
        total(await metricsOf(adminPort), 'domain_index_replica_in_use', { node: 'replica1' }) ===
        1;
      try {
        await until(
          'serve listens',
          () => server.stdout().includes('Domain Index API listening on'),
          60_000,
        );
        await until('the key reached the replica and it is in use', inUse, 60_000);
        expect((await call()).status).toBe(200);
        expect(
          total(await metricsOf(adminPort), 'domain_index_db_query_duration_seconds', {
            node: 'replica1',
            kind: 'key_lookup',
          }),
        ).toBeGreaterThan(0);
        // that request wrote (the key's last use, then its usage count, flushed within 5 s):
        // once both are on the primary and the replica has applied them, it is quiet again
        await until(
          "the request's writes reached the primary",
          async () => {
            const [row] = await primaryDb.rows<{ touched: boolean; counted: boolean }>(sql`
              select (select last_used_at is not null from api_keys where id = ${id}) as touched,
                     exists (select 1 from key_usage where key_id = ${id}) as counted`);
            return row?.touched === true && row.counted;
          },
          20_000,
        );
        await until(
          'the replica shows them',
          async () => {
            const [row] = await laggingDb.rows<{ touched: boolean; counted: boolean }>(sql`
              select (select last_used_at is not null from api_keys where id = ${id}) as touched,
                     exists (select 1 from key_usage where key_id = ${id}) as counted`);
            return row?.touched === true && row.counted;
          },
          20_000,
        );
        await until('the replica is in use again', inUse, 60_000);

        await revokeKey(primaryDb, id, 'revoked by the test', new Date());
        const revokedAt = Date.now();
        const answers: { at: number; status: number }[] = [];
        // asked until ten requests sent at or after the bound are answered, however long each takes
        while (answers.filter((answer) => answer.at >= boundMs).length < 10) {
          const at = Date.now() - revokedAt;
          answers.push({ at, status: (await call()).status });
          await sleep(20);
        }
        // the replica had not applied the revocation even then: only the bound refused the key
        const [onReplica] = await laggingDb.rows<{ revoked: boolean }>(
          sql`select revoked_at is not null as revoked from api_keys where id = ${id}`,
        );
        expect(onReplica?.revoked).toBe(false);
        const late = answers.filter((answer) => answer.at >= boundMs);
        expect(late.filter((answer) => answer.status !== 401)).toEqual([]);
      } finally {
        server.child.kill('SIGKILL');
      }
    }, 90_000);
  });

  it('retries on the primary a read that a replica leaves unanswered (a network partition), and leaves the replica out', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: replica.port });
    const metrics = new ApiMetrics(new Registry());
    const throughProxy = await openDatabase({
      databaseUrl: `postgres://postgres@127.0.0.1:${proxy.port}/api`,
      maxConnections: 2,
    });
    const router = new ReplicaRouter(primaryDb, [throughProxy], metrics, silent, {
      maxLagMs: 5_000,
      checkIntervalMs: 100,
      readTimeoutMs: 1_000,
    });
    try {
      await router.start();
      await until(
        'the replica is in use',
        async () => (await whichNode(router)) === 'replica',
        30_000,
      );
      proxy.freeze();
      // no reset, no answer: only the read timeout can tell
      expect(await whichNode(router)).toBe('primary');
      expect(
        (await metrics.readRetries.get()).values.find((value) => value.labels.node === 'replica1')
          ?.value,
      ).toBe(1);
      await until(
        'the health check leaves it out',
        () => router.healthChecks()['postgresql:replica1']![0]!.status === 'warn',
        5_000,
      );
      expect(await whichNode(router)).toBe('primary');
    } finally {
      await proxy.close();
      await router.close();
    }
  });

  it('retries once on the primary a search that a recovery conflict cancelled on the replica', async () => {
    // a replica that cancels a conflicting query at once instead of waiting
    const strict = await startReplica(primary, [
      'max_standby_streaming_delay = 0',
      'hot_standby_feedback = off',
    ]);
    const metrics = new ApiMetrics(new Registry());
    const router = new ReplicaRouter(
      primaryDb,
      [await openDatabase({ databaseUrl: strict.url('api'), maxConnections: 2 })],
      metrics,
      silent,
      {
        maxLagMs: 5_000,
        checkIntervalMs: 100,
      },
    );
    const strictDb = await openDatabase({ databaseUrl: strict.url('api'), maxConnections: 1 });
    try {
      await router.start();
      await until(
        'the replica is in use',
        async () => (await whichNode(router)) === 'replica',
        10_000,
      );
      const read = router.read('search_page', async (database) => {
        const [row] = await database.rows<{ replica: boolean }>(
          sql`select pg_is_in_recovery() as replica, pg_sleep(2), (select count(*) from listings) as n`,
        );
        return row!.replica ? 'replica' : 'primary';
      });
      await until('the search runs on the replica', async () => {
        const [row] = await strictDb.rows<{ n: number }>(
          sql`select count(*)::int as n from pg_stat_activity where state = 'active' and query like '%pg_sleep(2)%' and pid <> pg_backend_pid()`,
        );
        return (row?.n ?? 0) > 0;
      });
      // a lock on the primary that the replica must replay: the running search conflicts with it
      await primaryDb.db.transaction(async (tx) => {
        await tx.execute(sql`lock table listings in access exclusive mode`);
      });
      expect(await read).toBe('primary');
      expect(
        (await metrics.readRetries.get()).values.find((value) => value.labels.node === 'replica1')
          ?.value,
      ).toBe(1);
      const [conflicts] = await strictDb.rows<{ lock: number }>(
        sql`select confl_lock::int as lock from pg_stat_database_conflicts where datname = 'api'`,
      );
      expect(conflicts?.lock).toBeGreaterThanOrEqual(1);
    } finally {
      await router.close();
      await strictDb.close();
      await strict.destroy();
    }
  });

  it('walks a cursor whose pages come from two replicas without a duplicate or a skipped unchanged row', async () => {
    const second = await startReplica(primary);
    const metrics = new ApiMetrics(new Registry());
    const router = new ReplicaRouter(
      primaryDb,
      [
        await openDatabase({ databaseUrl: replica.url('api') }),
        await openDatabase({ databaseUrl: second.url('api') }),
      ],
      metrics,
      silent,
      { maxLagMs: 5_000, checkIntervalMs: 100 },
    );
    const test: TestDatabase = {
      database: primaryDb,
      url: primary.url('api'),
      dispose: () => Promise.resolve(),
    };
    const api = await startApi('postgres', {
      test,
      sources: [alpha, beta],
      overrides: { reads: router },
    });
    try {
      // Both must hold what the primary has before the router's first sample, or it cannot
      // bound their staleness; under CI's load replay can take a while after a base backup.
      const secondDb = await replicaConnection(second.url('api'));
      try {
        await caughtUp(primaryDb, replicaDb, 60_000, replica);
        await caughtUp(primaryDb, secondDb, 60_000, second);
      } finally {
        await secondDb.close();
      }
      await router.start();
      await until(
        'both replicas are in use',
        () => Object.values(router.healthChecks()).every(([check]) => check?.status === 'pass'),
        30_000,
      ).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}: ${JSON.stringify(router.healthChecks())}`);
      });
      const snapshot = async () =>
        new Map(
          (
            await primaryDb.rows<{ domain_name: string; v: string }>(
              sql`select domain_name, (current_bid, auction_end_time, status)::text as v from listings`,
            )
          ).map((row) => [row.domain_name, row.v]),
        );
      const before = await snapshot();
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page === 0 || cursor !== null; page += 1) {
        const response = await api.get(
          `/api/v1/domains?status=all&sort=current_bid&order=desc&limit=50${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
        );
        expect(response.status).toBe(200);
        const body = (await response.json()) as {
          data: { domain_name: string }[];
          pagination: { next_cursor: string | null };
        };
        seen.push(...body.data.map((row) => row.domain_name));
        cursor = body.pagination.next_cursor;
        if (page === 5) {
          // during the walk: beta's prices move, some of its names go and new ones come
          await load(primaryDb, beta, [
            ...records('beta', 500, (i) => ({
              current_bid: i % 3 === 0 ? 999 : ((i * 37) % 500) + 1,
            })),
            ...records('beta-new', 40),
          ]);
        }
      }
      const after = await snapshot();
      expect(new Set(seen).size).toBe(seen.length);
      const unchanged = [...before]
        .filter(([name, value]) => after.get(name) === value)
        .map(([name]) => name);
      expect(unchanged.length).toBeGreaterThan(1_500);
      const missing = unchanged.filter((name) => !seen.includes(name));
      expect(missing).toEqual([]);
      expect(await readsOn(metrics, 'replica1')).toBeGreaterThan(5);
      expect(await readsOn(metrics, 'replica2')).toBeGreaterThan(5);
    } finally {
      await api.close();
      await router.close();
      await second.destroy();
    }
  }, 60_000);

  it('keeps answering searches on the replica while the primary loads, switches, vacuums and purges, and no search is cancelled there', async () => {
    const importsDb = await createDatabaseOn(primary, 'imports');
    // The replica must have replayed the new database before anything connects to it there (a
    // connection during the replay failed in CI with EPIPE). Checked on a connection of its
    // own: the suite's replica was restarted by an earlier test.
    const replicaApi = await replicaConnection(replica.url('api'));
    await caughtUp(primaryDb, replicaApi, 60_000, replica).finally(() => replicaApi.close());
    const onReplica = await replicaConnection(replica.url('imports'), 4);
    const metrics = new ApiMetrics(new Registry());
    const router = new ReplicaRouter(importsDb, [onReplica], metrics, silent, {
      maxLagMs: 30_000,
      checkIntervalMs: 100,
    });
    const test: TestDatabase = {
      database: importsDb,
      url: primary.url('imports'),
      dispose: () => Promise.resolve(),
    };
    const api = await startApi('postgres', {
      test,
      sources: [alpha, beta],
      overrides: { reads: router, metrics },
    });
    const watcher = await replicaConnection(replica.url('imports'));
    let searching: (() => Promise<unknown>) | undefined;
    try {
      await caughtUp(importsDb, watcher, 60_000, replica);
      await router.start();
      await until(
        'the replica is in use',
        () => router.healthChecks()['postgresql:replica1']![0]!.status === 'pass',
        10_000,
      );
      const answers: { status: number; ms: number }[] = [];
      let running = true;
      const loops: Promise<void>[] = [
        '?status=all',
        '?status=all&search=load1',
        '?status=all&sort=current_bid',
        '/alpha5.com',
      ].map(async (query) => {
        while (running) {
          const started = performance.now();
          const response = await api.get(
            query.startsWith('/') ? `/api/v1/domains${query}` : `/api/v1/domains${query}`,
          );
          await response.arrayBuffer();
          answers.push({ status: response.status, ms: performance.now() - started });
        }
      });
      // a failure below must stop the searches before the server closes under them
      searching = () => {
        running = false;
        return Promise.allSettled(loops);
      };
      // a first load (the bulk path and its swap), then a batch that replaces it (vacuum and
      // analyse follow, over 10,000 rows changed), then a purge of ended rows
      await load(
        importsDb,
        alpha,
        records('load', 12_000, (i) =>
          i % 10 === 0 ? { auction_end_time: '2020-01-01T00:00:00.000Z' } : {},
        ),
      );
      await load(importsDb, alpha, records('reload', 12_000));
      await load(
        importsDb,
        beta,
        records('ended', 2_000, () => ({ auction_end_time: '2020-01-01T00:00:00.000Z' })),
      );
      await purgeEnded(importsDb, new Date(), 3);
      await caughtUp(importsDb, watcher, 60_000, replica);
      running = false;
      await Promise.all(loops);
      searching = undefined;
      expect(answers.length).toBeGreaterThan(40);
      expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
      expect(await readsOn(metrics, 'replica1')).toBeGreaterThan(await readsOn(metrics, 'primary'));
      const [conflicts] = await watcher.rows<{ n: number }>(sql`
        select (confl_tablespace + confl_lock + confl_snapshot + confl_bufferpin + confl_deadlock)::int as n
        from pg_stat_database_conflicts where datname = 'imports'`);
      expect(conflicts?.n).toBe(0);
      // no search on the replica waited 300 ms for a lock the primary's switch took
      expect(
        (await replica.log())
          .split('\n')
          .filter((line) => /still waiting for AccessShareLock|recovery still waiting/.test(line)),
      ).toEqual([]);
      console.log(
        `searches during the imports: ${answers.length}, slowest ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms`,
      );
    } finally {
      await searching?.();
      await api.close();
      await router.close();
      await watcher.close();
      await importsDb.close();
    }
  }, 120_000);
});
