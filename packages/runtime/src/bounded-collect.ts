import { Gauge, type Registry } from 'prom-client';

/** Longest a scrape waits for a collector that reads the database before serving its last values. */
export const COLLECT_TIMEOUT_MS = 1_000;

/** Each registry's bounded reads, by collector: the stale gauge awaits them all at a scrape. */
const readsOf = new WeakMap<Registry, Map<string, () => Promise<boolean>>>();

/** `domain_index_metrics_stale{collector}` of a registry, made with its first bounded collector. */
function collectorsOf(registry: Registry): Map<string, () => Promise<boolean>> {
  let reads = readsOf.get(registry);
  if (reads === undefined) {
    const known = new Map<string, () => Promise<boolean>>();
    reads = known;
    readsOf.set(registry, known);
    new Gauge({
      name: 'domain_index_metrics_stale',
      help: "Whether the collector's read at the last scrape failed or took over 1 s (1: its gauges show the last values read; the database is away or slow), else 0.",
      labelNames: ['collector'],
      // with WORKERS, stale when any worker's is
      aggregator: 'max',
      registers: [registry],
      // the same reads the collectors' gauges await at this scrape, so the marker never lags
      async collect() {
        await Promise.all([...known].map(async ([collector, answered]) => this.set({ collector }, (await answered()) ? 0 : 1)));
      },
    });
  }
  return reads;
}

/**
 * A scrape-time read bounded by COLLECT_TIMEOUT_MS, for gauges that query something: a read
 * that has not answered by then (or failed) gives undefined, so the gauges keep their last
 * values, and marks the collector stale; /metrics answers promptly while the database is
 * stalled (a target that stops answering its scrape is "down", the wrong alert for a database
 * that is away). The read in flight is shared by every call while it runs, and its answer is
 * reused for `reuseMs` after it finishes, so several gauges share one statement per scrape.
 */
export function boundedCollector<T>(registry: Registry, collector: string, read: () => Promise<T>, reuseMs = 1_000): () => Promise<T | undefined> {
  let current: Promise<T | undefined> | undefined;
  const bounded = async (): Promise<T | undefined> => {
    current ??= read()
      .catch(() => undefined)
      .finally(() => setTimeout(() => (current = undefined), reuseMs).unref());
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), COLLECT_TIMEOUT_MS)));
    try {
      return await Promise.race([current, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  };
  collectorsOf(registry).set(collector, async () => (await bounded()) !== undefined);
  return bounded;
}
