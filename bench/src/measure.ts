import autocannon from 'autocannon';

/** Latency percentiles in milliseconds. */
export interface Latency {
  p50: number;
  p95: number;
  p99: number;
}

/** Percentiles of a list of durations (ms). */
export function percentiles(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  const round = (value: number) => Math.round(value * 100) / 100;
  return { p50: round(at(0.5)), p95: round(at(0.95)), p99: round(at(0.99)) };
}

/** Runs `once` n times one after another (concurrency 1), after a short warm-up. */
export async function sequential(n: number, once: () => Promise<void>): Promise<Latency> {
  for (let i = 0; i < Math.min(10, n); i += 1) await once();
  const samples: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const start = performance.now();
    await once();
    samples.push(performance.now() - start);
  }
  return percentiles(samples);
}

/** Throughput of `concurrency` workers running `once` for `seconds`. */
export async function saturate(seconds: number, concurrency: number, once: () => Promise<void>): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await once();
        done += 1;
      }
    }),
  );
  return Math.round(done / seconds);
}

/**
 * HTTP throughput and latency under load, from autocannon (a separate load generator). With
 * `nextPath`, each request asks for the path it returns (another position, another name), so
 * the load does not read one cached answer over and over.
 */
export async function httpLoad(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
  nextPath?: () => string,
): Promise<{ rps: number; requests: number; p50: number; p99: number; non2xx: number; errors: number }> {
  const requests = nextPath === undefined ? undefined : [{ setupRequest: (request: autocannon.Request) => ({ ...request, path: nextPath() }) }];
  const result = await autocannon({ url, headers, connections, duration: seconds, pipelining: 1, ...(requests === undefined ? {} : { requests }) });
  return {
    rps: Math.round(result.requests.average),
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
