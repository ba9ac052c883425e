import { openDatabase, type Database } from '@domain-index/db';
import type { Config } from '@domain-index/config/config';
import type { Logger } from '@domain-index/runtime/logger';
import type { ApiMetrics } from '@domain-index/api/ops/api-metrics';
import { describeUrl } from '../runtime';
import { PrimaryReads, type ReadNodes } from '@domain-index/api/replicas/read-nodes';
import { ReplicaRouter } from '@domain-index/api/replicas/replica-router';

/**
 * Where `serve` sends its reads: the replicas of DATABASE_REPLICA_URLS behind a ReplicaRouter,
 * or the primary alone. A replica that cannot be reached at start does not stop start-up: it
 * is left out until it answers, and reads go to the other nodes.
 */
export async function openReadNodes(
  config: Config,
  primary: Database,
  metrics: ApiMetrics,
  logger: Logger,
): Promise<ReadNodes> {
  if (config.replicaUrls.length === 0 || primary.kind !== 'postgres')
    return new PrimaryReads(primary, metrics);
  // The same statement timeout as the primary's pool: a search is cancelled past it anywhere.
  const replicas = await Promise.all(
    config.replicaUrls.map((url) =>
      openDatabase({
        databaseUrl: url,
        statementTimeoutMs: config.queryTimeoutMs,
        connectTimeoutMs: config.databaseConnectTimeoutMs,
        idleTimeoutMs: config.databaseIdleTimeoutMs,
      }),
    ),
  );
  const router = new ReplicaRouter(primary, replicas, metrics, logger, {
    maxLagMs: config.replicaMaxLagMs,
    checkIntervalMs: config.replicaCheckIntervalMs,
    // a replica that leaves a read unanswered a second past the statement timeout has gone silent
    readTimeoutMs: config.queryTimeoutMs + 1_000,
  });
  await router.start();
  logger.info(
    { replicas: config.replicaUrls.map(describeUrl), stalenessBoundMs: router.stalenessBoundMs },
    'reads go to the replicas',
  );
  return router;
}
