import cluster, { type Worker } from 'node:cluster';
import { publicUrlWarning, type Config } from '@domain-index/config/config';
import { flushRepeats, type Logger } from '@domain-index/runtime/logger';
import { openMigratedDatabase } from '../runtime';
import type { Database } from '@domain-index/db';
import { systemClock } from '@domain-index/runtime/clock';
import { openAdmin, stopAdminServer } from '../ops/admin-server';
import { Health } from '../ops/health';
import { clusterMetrics } from '@domain-index/runtime/process-registry';
import { Readiness } from '@domain-index/runtime/readiness';
import { onShutdownSignals } from '@domain-index/runtime/shutdown';
import { loadSources } from '../sources';

/** A worker that dies after start-up is replaced after this long, so a crash cannot spin. */
const REPLACE_AFTER_MS = 1_000;

/**
 * `serve` with WORKERS > 1: this process brings the schema up to date once, then runs that many
 * API processes on this machine, sharing one port (Node's cluster module hands the connections
 * to them in turn). One Node process uses one core; the instances are stateless and the Redis
 * limiter keeps one count per key across them, so this is N instances on one machine. A worker
 * that dies is logged and replaced; SIGTERM or SIGINT stop every worker gracefully, then this
 * process (a second signal, or SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS passing, kills them). If a worker fails before all of them listen, start-up fails: everything stops and
 * the exit code is 1 (the worker has said why on stderr).
 */
export async function serveWorkers(config: Config, logger: Logger): Promise<void> {
  // The primary serves the admin listener for all workers: their metrics summed, probes, health.
  const readiness = new Readiness(undefined);
  const health = new Health({ redisUrl: config.redisUrl, sources: loadSources(config.sourcesFile), clock: systemClock, description: `Domain Index API, ${config.workers} workers` });
  const admin = await openAdmin(config, { readiness, metrics: clusterMetrics(), health: () => health.report() }, logger);
  let database: Database;
  try {
    database = await openMigratedDatabase(config);
  } catch (error) {
    await stopAdminServer(admin);
    throw error;
  }
  if (admin === undefined) await database.close();
  else {
    // kept for the probes and /health only (postgres.js connects as statements need it)
    readiness.useDatabase(database);
    health.useDatabase(database);
  }
  const closeAdmin = () => {
    if (admin === undefined) return;
    void Promise.allSettled([health.close(), database.close()]).then(() => stopAdminServer(admin));
  };

  let stopping = false;
  let started = false;
  const running = new Set<Worker>();
  const listening = new Set<number>();
  const fork = () => running.add(cluster.fork());

  cluster.on('listening', (worker, address) => {
    listening.add(worker.id);
    if (started || listening.size < config.workers) return;
    started = true;
    readiness.markReady();
    logger.info({ host: config.host, port: address.port, workers: config.workers }, 'listening');
    process.stdout.write(`Domain Index API listening on http://${config.host}:${address.port}/api/v1 (postgres, ${config.workers} workers); dashboard: ${config.publicUrl}/dashboard\n`);
    process.stderr.write(publicUrlWarning(config) ?? '');
  });

  cluster.on('exit', (worker, code, signal) => {
    // a worker stopped while still starting had nothing in flight, however it ended
    const wasServing = listening.has(worker.id);
    running.delete(worker);
    listening.delete(worker.id);
    const clean = code === 0 && signal === null;
    if (stopping) {
      if (!clean && wasServing) {
        logger.error({ pid: worker.process.pid, code, signal }, 'an API worker did not stop cleanly');
        process.exitCode = 1;
      }
      if (running.size === 0) {
        closeAdmin();
        flushRepeats(logger);
        logger.info('stopped');
        logger.flush();
      }
      return;
    }
    if (!started) {
      logger.error({ pid: worker.process.pid, code, signal }, 'an API worker failed to start; stopping');
      process.exitCode = 1;
      stopAll();
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'an API worker exited; starting another');
    // Not unref'd: with every worker gone, this timer is what keeps the primary alive.
    setTimeout(() => {
      if (!stopping) fork();
    }, REPLACE_AFTER_MS);
  });

  const stopAll = () => {
    stopping = true;
    readiness.markDraining();
    for (const worker of running) {
      // the worker's own graceful shutdown (commands/serve.ts) finishes its in-flight requests;
      // ChildProcess.kill does not throw for a process that has just exited
      if (!worker.isDead()) worker.process.kill('SIGTERM');
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    logger.info({ signal }, 'shutting down: stopping the API workers');
    stopAll();
  };
  // Each worker has the same deadline; past it, or on a second signal, what still runs is killed.
  onShutdownSignals(onSignal, {
    logger,
    deadlineMs: config.shutdownDelayMs + config.shutdownTimeoutMs,
    secondSignalExits: true,
    beforeForcedExit: () => {
      for (const worker of running) if (!worker.isDead()) worker.process.kill('SIGKILL');
    },
  });

  for (let i = 0; i < config.workers; i += 1) fork();
}
