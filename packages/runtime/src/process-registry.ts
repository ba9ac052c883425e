import cluster from 'node:cluster';
import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';

/** The content type of the Prometheus text exposition, version 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * This process's registry, with Node's process defaults (CPU, memory, event loop, GC). In a
 * worker of `serve` (WORKERS > 1) it is also what the worker reports when the primary asks for
 * every worker's metrics: prom-client's AggregatorRegistry answers those requests in each
 * worker once it is constructed there.
 */
export function processRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  if (cluster.isWorker) {
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([registry]);
  }
  return registry;
}

/**
 * In the primary of `serve` with WORKERS > 1: every worker's metrics, summed per series
 * (counters and histograms add up; prom-client's default metrics say how each aggregates).
 */
export function clusterMetrics(): () => Promise<{ contentType: string; text: string }> {
  const aggregator = new AggregatorRegistry();
  return async () => ({
    contentType: PROMETHEUS_CONTENT_TYPE,
    text: await aggregator.clusterMetrics(),
  });
}
