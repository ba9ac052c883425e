import { VERSION } from '../version';
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { Express } from 'express';
import { apiKeys, listings, type Database } from '@domain-index/db';
import { createApp } from '@domain-index/api/app';
import { trackConnections, type ConnectionDrain } from '@domain-index/api/http/drain-connections';
import { createHttpServer } from '@domain-index/api/http/http-server';
import { systemClock } from '@domain-index/runtime/clock';
import { publicUrlWarning, type Config } from '@domain-index/config/config';
import { flushRepeats, type Logger } from '@domain-index/runtime/logger';
import { seedIndex } from '@domain-index/worker/indexing/seed-index';
import { MemoryRateLimiter } from '@domain-index/api/ratelimit/memory-rate-limiter';
import type { RateLimiter } from '@domain-index/api/ratelimit/rate-limiter';
import { RedisRateLimiter } from '@domain-index/api/ratelimit/redis-rate-limiter';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { CliError } from '../cli-error';
import { lendEmbeddedDatabase, openMigratedDatabase } from '../runtime';
import { announceControl } from '../embedded/data-dir-lock';
import { openControlServer, type ControlServer } from '../embedded/control-server';
import { runSyncWorker } from '@domain-index/worker/indexing/sync-worker';
import { loadSources } from '../sources';
import { SignInLimiter } from '@domain-index/api/dashboard/sign-in-limiter';
import { Mailer } from '@domain-index/mail/mailer';
import { RequestLogRecorder } from '@domain-index/api/request-log/request-log-recorder';
import { UsageRecorder } from '@domain-index/api/usage/usage-recorder';
import { prepareDemo, startAnnouncement, type DemoStart } from './first-start';
import { Readiness } from '@domain-index/runtime/readiness';
import { ApiMetrics } from '@domain-index/api/ops/api-metrics';
import { openAdmin, ownMetrics, stopAdminServer } from '../ops/admin-server';
import { onShutdownSignals } from '@domain-index/runtime/shutdown';
import { Health } from '../ops/health';
import { processRegistry } from '@domain-index/runtime/process-registry';
import { openProbeDatabase } from '@domain-index/runtime/probe-database';
import { registerPoolMetrics } from '@domain-index/runtime/pool-metrics';
import { USAGE_FLUSH_MS } from '@domain-index/api/usage/usage-recorder';
import { openReadNodes } from '../replicas/open-read-nodes';
import type { ReadNodes } from '@domain-index/api/replicas/read-nodes';
import { ReplicaRouter } from '@domain-index/api/replicas/replica-router';
import { BackgroundLoop } from '@domain-index/runtime/background-loop';
import { EventHousekeeping } from '@domain-index/worker/events/event-housekeeping';
import { deliveriesFromConfig } from '@domain-index/worker/alerts/deliveries-from-config';
import { rdapFromConfig, registrationChecksFromConfig } from '@domain-index/worker/names/registration-checks-from-config';
import { DELIVERY_EVERY_MS } from '@domain-index/worker/alerts/delivery-worker';

/** Listings seeded on the first start of the embedded default, so a laptop has data to search. */
export const DEMO_ROWS = 20_000;

/** Longest start-up waits for the limiters' Redis before listening anyway (requests then get 503 until it answers). */
const REDIS_CONNECT_WAIT_MS = 5_000;

/**
 * Starts the API and stops it gracefully on SIGTERM/SIGINT: stop accepting, let in-flight
 * requests finish and close each connection after its response, write what the request log
 * and the usage counts hold, then close the pools and the Redis clients; all of it within
 * SHUTDOWN_TIMEOUT_MS of the listener closing, or the process exits 1 (@domain-index/runtime/shutdown).
 */
export async function serve(config: Config, logger: Logger): Promise<void> {
  const sources = loadSources(config.sourcesFile);
  const registry = processRegistry();
  const metrics = new ApiMetrics(registry);
  const readiness = new Readiness(undefined);
  const health = new Health({ redisUrl: config.redisUrl, sources, clock: systemClock, description: 'Domain Index API' });
  // A worker's metrics and probes are served by the primary (commands/serve-workers.ts).
  const admin = cluster.isWorker ? undefined : await openAdmin(config, { readiness, metrics: ownMetrics(registry), health: () => health.report() }, logger);
  let database: Database;
  try {
    // Every API statement is cancelled past the query budget (503 query_failed, never a hang).
    database = await openMigratedDatabase(config, { statementTimeoutMs: config.queryTimeoutMs });
  } catch (error) {
    await stopAdminServer(admin);
    throw error;
  }
  const probe = await openProbeDatabase(config.databaseUrl, database);
  readiness.useDatabase(probe.database);
  health.useDatabase(probe.database);
  let rateLimiter: RateLimiter | undefined;
  let signInLimiter: SignInLimiter | undefined;
  const usage = new UsageRecorder(database, logger, USAGE_FLUSH_MS, metrics);
  const requestLog = new RequestLogRecorder(database, logger, { metrics });
  const mailer = config.mail === undefined ? undefined : new Mailer({ ...config.mail, logger });
  let demo: DemoStart | undefined;
  let server: Server;
  let connections: ConnectionDrain;
  let reads: ReadNodes | undefined;
  // The embedded start has no `sync` worker beside it: its own process does the worker's
  // background work, so the demo's change feed gets its time-driven events too.
  const events = new EventHousekeeping(database, systemClock, logger, { retentionDays: config.eventRetentionDays });
  const background = config.databaseUrl === undefined ? new BackgroundLoop([{ name: 'events', run: () => events.tick() }], logger, DELIVERY_EVERY_MS) : undefined;
  const deliveries = config.databaseUrl === undefined ? await deliveriesFromConfig({ config, database, clock: systemClock, logger, registry, mailer }) : undefined;
  // the embedded start checks watched names itself; with PostgreSQL the sync worker does, and the
  // API has a client of its own for refresh=true (each process keeps each RDAP server's limits)
  const checks = config.databaseUrl === undefined ? registrationChecksFromConfig({ config, database, clock: systemClock, logger, registry }) : undefined;
  const rdap = checks?.rdap ?? (config.rdap.checks ? rdapFromConfig(config, logger) : undefined);
  // Everything opened, closed in this order on a failed start and on shutdown (the usage
  // counts still in memory are written before the pool closes).
  // The embedded database is this process's alone (embedded/data-dir-lock.ts): other
  // `domain-index` commands run here, through the control socket, and so do the configured
  // sources' syncs, on their schedules.
  const embedded = config.databaseUrl === undefined && !config.dataDir.startsWith('memory://');
  let control: ControlServer | undefined;
  const stopSync = new AbortController();
  let syncing: Promise<void> | undefined;
  const closeAll = async () => {
    // no more commands from other processes; the one in flight finishes first
    await control?.close();
    lendEmbeddedDatabase(config.dataDir, undefined);
    stopSync.abort();
    await syncing;
    // the background work first: its deliveries may still be sending or mailing
    await Promise.all([background?.stop(), deliveries?.stop(), checks === undefined ? rdap?.close() : checks.stop()]);
    mailer?.close();
    await Promise.allSettled([rateLimiter?.close(), signInLimiter?.close(), usage.close(), requestLog.close(), health.close(), reads?.close(), probe.close()]);
    await database.close();
    await stopAdminServer(admin);
  };
  try {
    const opened = await openReadNodes(config, database, metrics, logger);
    reads = opened;
    registerPoolMetrics(registry, () => opened.pools());
    if (opened instanceof ReplicaRouter) health.alsoReport(() => opened.healthChecks());
    if (config.databaseUrl === undefined && (await database.db.$count(listings)) === 0) {
      process.stdout.write(`First start of the embedded database: seeding ${DEMO_ROWS} demo listings...\n`);
      await seedIndex({ database, sources, rows: DEMO_ROWS, clock: systemClock });
    }
    // the embedded default is a laptop's: a demo key and account the first time, and afterwards how to get a key again
    if (config.databaseUrl === undefined) demo = await prepareDemo(database, config.publicUrl, (await database.db.$count(apiKeys)) > 0);
    rateLimiter = config.redisUrl === undefined ? new MemoryRateLimiter() : new RedisRateLimiter(config.redisUrl);
    signInLimiter = config.redisUrl === undefined ? SignInLimiter.inMemory() : SignInLimiter.redis(config.redisUrl);
    if (rateLimiter instanceof RedisRateLimiter) {
      // Listening before the limiter's client is ready would refuse the first requests 503.
      const [limits, signIns] = await Promise.all([rateLimiter.connected(REDIS_CONNECT_WAIT_MS), signInLimiter.connected(REDIS_CONNECT_WAIT_MS)]);
      if (!limits || !signIns) logger.warn({ waitedMs: REDIS_CONNECT_WAIT_MS }, 'Redis is not reachable yet: requests get 503 rate_limit_unavailable until it is');
    }
    const app = createApp({
      database,
      logger,
      clock: systemClock,
      sources,
      countBudgetMs: config.countBudgetMs,
      queryTimeoutMs: config.queryTimeoutMs,
      exportTimeoutMs: config.exportTimeoutMs,
      statsTimeoutMs: config.statsTimeoutMs,
      eventRetentionDays: config.eventRetentionDays,
      alerts: { allowList: config.webhookAllowList, digestsAvailable: mailer !== undefined },
      cursorSecret: await loadCursorSecret(database),
      rateLimiter,
      rdap,
      usage,
      requestLog,
      readiness,
      metrics,
      reads,
      dashboard: { publicUrl: config.publicUrl, signupOpen: config.signupOpen, signInLimiter, mailer },
      trustProxy: config.trustProxy,
      publicUrl: config.configuredPublicUrl,
      version: VERSION,
    });
    server = await listen(app, config);
    // Idle connections stay open longer than a load balancer keeps its own (60 s on the common
    // ones). With Node's 5 s default a balancer can reuse a connection the API is just closing,
    // get a reset, and answer its client 502.
    server.keepAliveTimeout = config.keepAliveTimeoutMs;
    // tracked from the first connection: one accepted while the rest of the start ran would
    // otherwise be unknown to the drain
    connections = trackConnections(server);
    background?.start();
    deliveries?.start();
    checks?.start();
    if (embedded) {
      lendEmbeddedDatabase(config.dataDir, database);
      const { runCommandLine } = await import('../cli-program');
      control = await openControlServer(config.dataDir, logger, runCommandLine);
      if (control !== undefined) announceControl(config.dataDir, control.path);
      // only sources an operator configured: the defaults' feeds are the demo's made-up hosts
      if (config.sourcesFile !== undefined) {
        syncing = runSyncWorker({ database, sources, clock: systemClock, logger, retentionDays: config.retentionDays, signal: stopSync.signal }).catch((error: unknown) => {
          logger.error({ err: error }, 'the sources\' sync stopped; restart the server to resume it');
        });
      }
    }
    readiness.markReady();
  } catch (error) {
    // An open pool or limiter would keep the process alive with nothing to serve (and a
    // worker's primary would never learn that its start-up failed).
    await closeAll();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  // a worker of serve-workers.ts leaves the announcement to the process that runs them all
  if (cluster.isPrimary) {
    const apiUrl = `http://${config.host}:${port}/api/v1`;
    process.stdout.write(startAnnouncement({ apiUrl, publicUrl: config.publicUrl, database: database.kind, demo }, process.stdout.isTTY));
    process.stderr.write(publicUrlWarning(config) ?? '');
  }
  logger.info({ host: config.host, port, database: database.kind, rateLimiter: config.redisUrl === undefined ? 'memory' : 'redis' }, 'listening');

  // The listener closes SHUTDOWN_DELAY_MS after the signal, and the whole stop gets
  // SHUTDOWN_TIMEOUT_MS from then; its last part (at most 1 s) is kept for writing the request
  // log and the usage counts and closing the pools, after the connections still open are closed.
  const closingReserveMs = Math.min(1_000, Math.floor(config.shutdownTimeoutMs / 4));
  const stop = (signal: string) => {
    // Readiness fails at once; the listener stays open SHUTDOWN_DELAY_MS more, so a balancer
    // that polls /readyz stops sending requests before any connection is refused.
    readiness.markDraining();
    logger.info({ signal, delayMs: config.shutdownDelayMs }, 'draining: /readyz fails, the listener closes after the delay');
    setTimeout(() => {
      closeListener();
    }, config.shutdownDelayMs);
  };
  const closeListener = () => {
    logger.info('shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.warn('shutdown timeout reached: closing remaining connections');
      connections.closeAll();
    }, config.shutdownTimeoutMs - closingReserveMs);
    force.unref();
    // no new connection; each open one closes after its response, or once idle a while
    connections.close(() => {
      void closeAll().finally(() => {
        flushRepeats(logger);
        logger.info('stopped');
        logger.flush();
        process.exitCode = 0;
      });
    });
  };
  // A worker of serve-workers.ts hears a signal twice (from the supervisor's signal to the
  // process group and from the primary): it ignores the repeat. Anywhere else a second signal
  // means "now". Past the deadline the process exits 1 whatever is still open.
  onShutdownSignals(stop, { logger, deadlineMs: config.shutdownDelayMs + config.shutdownTimeoutMs, secondSignalExits: !cluster.isWorker });
}

/**
 * Listens on the configured address, with bounded times to receive a request (SERVER_TIMEOUTS);
 * a failure (the port taken) becomes one CLI line.
 */
async function listen(app: Express, config: Config): Promise<Server> {
  try {
    return await new Promise<Server>((resolve, reject) => {
      const listening = createHttpServer(app);
      listening.once('error', reject);
      listening.listen(config.port, config.host, () => {
        resolve(listening);
      });
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CliError(`cannot listen on ${config.host}:${config.port}: ${typeof code === 'string' ? code : String(error)}`, { cause: error });
  }
}
