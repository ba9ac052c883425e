import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { Express } from 'express';
import { apiKeys, listings } from '@domain-index/db';
import { createKey } from '../auth/key-store';
import { createApp } from '../app';
import { trackConnections } from '../http/drain-connections';
import { systemClock } from '../clock';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { seedIndex } from '../indexing/seed-index';
import { MemoryRateLimiter } from '../ratelimit/memory-rate-limiter';
import type { RateLimiter } from '../ratelimit/rate-limiter';
import { RedisRateLimiter } from '../ratelimit/redis-rate-limiter';
import { loadCursorSecret } from '../search/cursor-secret';
import { CliError, openMigratedDatabase } from '../runtime';
import { loadSources } from '../sources';

/** Listings seeded on the first start of the embedded default, so a laptop has data to search. */
export const DEMO_ROWS = 20_000;

/**
 * Starts the API and stops it gracefully on SIGTERM/SIGINT: stop accepting, let in-flight
 * requests finish (up to SHUTDOWN_TIMEOUT_MS) and close each connection after its response,
 * then close the pools.
 */
export async function serve(config: Config, logger: Logger): Promise<void> {
  const sources = loadSources(config.sourcesFile);
  // Every API statement is cancelled past the query budget (503 query_failed, never a hang).
  const database = await openMigratedDatabase(config, { statementTimeoutMs: config.queryTimeoutMs });
  let rateLimiter: RateLimiter | undefined;
  let server: Server;
  try {
    if (config.databaseUrl === undefined && (await database.db.$count(listings)) === 0) {
      process.stdout.write(`First start of the embedded database: seeding ${DEMO_ROWS} demo listings...\n`);
      await seedIndex({ database, sources, rows: DEMO_ROWS, clock: systemClock });
    }
    if (config.databaseUrl === undefined && (await database.db.$count(apiKeys)) === 0) {
      const demo = await createKey(database, { planId: 'pro', name: 'demo', environment: 'test' });
      process.stdout.write(`Demo API key (pro plan; shown once, only its hash is stored):\n  ${demo.key}\n`);
    }
    rateLimiter = config.redisUrl === undefined ? new MemoryRateLimiter() : new RedisRateLimiter(config.redisUrl);
    const app = createApp({
      database,
      logger,
      clock: systemClock,
      sources,
      countBudgetMs: config.countBudgetMs,
      queryTimeoutMs: config.queryTimeoutMs,
      cursorSecret: await loadCursorSecret(database),
      rateLimiter,
    });
    server = await listen(app, config);
  } catch (error) {
    // An open pool or limiter would keep the process alive with nothing to serve (and a
    // worker's primary would never learn that its start-up failed).
    await Promise.allSettled([rateLimiter?.close(), database.close()]);
    throw error;
  }
  // Idle connections stay open longer than a load balancer keeps its own (60 s on the common
  // ones). With Node's 5 s default a balancer can reuse a connection the API is just closing,
  // get a reset, and answer its client 502.
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  const connections = trackConnections(server);
  const limiter = rateLimiter;
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  logger.info({ host: config.host, port, database: database.kind, rateLimiter: config.redisUrl === undefined ? 'memory' : 'redis' }, 'listening');
  // a worker of serve-workers.ts leaves the announcement to the process that runs them all
  if (cluster.isPrimary) process.stdout.write(`Domain Index API listening on http://${config.host}:${port}/api/v1 (${database.kind})\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.warn('shutdown timeout reached: closing remaining connections');
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    force.unref();
    server.close(() => {
      void Promise.allSettled([limiter.close(), database.close()]).finally(() => {
        logger.info('stopped');
        logger.flush();
        process.exitCode = 0;
      });
    });
    connections.drain();
  };
  // `on`, not `once`: a supervisor that signals the whole process group (systemd's default)
  // reaches a worker twice, from itself and from the primary; a second signal must not fall
  // through to the default action and kill the worker mid-request. stop() ignores repeats.
  process.on('SIGTERM', () => {
    stop('SIGTERM');
  });
  process.on('SIGINT', () => {
    stop('SIGINT');
  });
}

/** Listens on the configured address; a failure (the port taken) becomes one CLI line. */
async function listen(app: Express, config: Config): Promise<Server> {
  try {
    return await new Promise<Server>((resolve, reject) => {
      const listening = app.listen(config.port, config.host, () => {
        resolve(listening);
      });
      listening.once('error', reject);
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CliError(`cannot listen on ${config.host}:${config.port}: ${typeof code === 'string' ? code : String(error)}`, { cause: error });
  }
}
