import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SeriesHistogram } from './series-histogram';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const OBSERVATIONS: [Record<'method' | 'route', string>, number][] = [
  [{ method: 'GET', route: '/a' }, 0.0005],
  [{ method: 'GET', route: '/a' }, 0.001],
  [{ method: 'GET', route: '/a' }, 0.05],
  [{ method: 'GET', route: '/b' }, 7],
  [{ method: 'POST', route: '/a' }, 0.2],
  [{ method: 'GET', route: '/a' }, 0.0999],
];

function both() {
  const ours = new Registry();
  const theirs = new Registry();
  const series = new SeriesHistogram('x_seconds', 'help text', ['method', 'route'], BUCKETS, ours);
  const reference = new Histogram({ name: 'x_seconds', help: 'help text', labelNames: ['method', 'route'], buckets: BUCKETS, registers: [theirs] });
  for (const [labels, value] of OBSERVATIONS) {
    series.observe(labels, value);
    reference.observe(labels, value);
  }
  return { ours, theirs, series, reference };
}

describe('SeriesHistogram', () => {
  it("is exposed exactly as prom-client's Histogram with the same observations", async () => {
    const { ours, theirs } = both();
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('x_seconds_bucket{le="0.1",method="GET",route="/a"} 4');
    expect(text).toContain('x_seconds_count{method="GET",route="/b"} 1');
  });

  it("gives the same values as prom-client's Histogram, so a cluster's primary sums workers alike", async () => {
    const { series, reference, ours, theirs } = both();
    // prom-client adds an empty `exemplar` to each value (exemplars are off); nothing reads it
    const referenceValues = (await reference.get()).values.map(({ labels, value, metricName }) => ({ labels, value, metricName }));
    expect((await series.get()).values).toEqual(referenceValues);
    const aggregated = AggregatorRegistry.aggregate([await ours.getMetricsAsJSON(), await ours.getMetricsAsJSON()]);
    const reference2 = AggregatorRegistry.aggregate([await theirs.getMetricsAsJSON(), await theirs.getMetricsAsJSON()]);
    expect(await aggregated.metrics()).toBe(await reference2.metrics());
    expect(await aggregated.metrics()).toContain('x_seconds_count{method="GET",route="/a"} 8');
  });

  it('ignores a value that is not a finite number, and forgets every series on reset', async () => {
    const { series, ours } = both();
    series.observe({ method: 'GET', route: '/a' }, Number.NaN);
    expect(await ours.metrics()).toContain('x_seconds_count{method="GET",route="/a"} 4');
    ours.resetMetrics();
    expect((await series.get()).values).toEqual([]);
  });
});
