import type { Registry } from 'prom-client';

/** One series: the counts of its buckets (not cumulative), its sum and count. */
interface Series {
  labels: Readonly<Record<string, string>>;
  counts: Float64Array;
  sum: number;
  count: number;
}

/** A level of the series tree: by the value of one label, the next level or, at the last label, the series. */
type Level = Map<string, Level | Series>;

/**
 * A Prometheus histogram observed on every request, cheap enough for it. prom-client's own
 * Histogram validates the labels, builds a string key from them (sorting their names) and looks
 * the series up by it, at each observation: two of them per lookup were more than 10 us of its
 * CPU under load (bench/notes/80). Here a series is found by walking one Map per label, with
 * nothing made per observation, and the buckets are counted in a typed array. Registered in a
 * prom-client Registry, it is exposed exactly as prom-client's Histogram would be (the same
 * `_bucket`, `_sum` and `_count` lines), and summed across workers like one.
 */
export class SeriesHistogram<L extends string> {
  readonly type = 'histogram';
  /** How a cluster's primary combines the workers' values (prom-client's AggregatorRegistry). */
  readonly aggregator = 'sum';
  private root: Level = new Map();
  private series: Series[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    private readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    if (labelNames.length === 0) throw new Error(`${name}: a SeriesHistogram has at least one label`);
    // prom-client's Registry takes any object with its metrics' shape (name, help, type, get)
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** Counts one observation; a value that is not a finite number is ignored. */
  observe(labels: Readonly<Record<L, string>>, value: number): void {
    if (!Number.isFinite(value)) return;
    const series = this.seriesOf(labels);
    series.sum += value;
    series.count += 1;
    const bounds = this.upperBounds;
    for (let i = 0; i < bounds.length; i += 1) {
      if (value <= bounds[i]!) {
        series.counts[i]! += 1;
        return;
      }
    }
  }

  private seriesOf(labels: Readonly<Record<L, string>>): Series {
    const names = this.labelNames;
    const last = names.length - 1;
    let level = this.root;
    for (let i = 0; i < last; i += 1) {
      const value = labels[names[i]!];
      let next = level.get(value) as Level | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const value = labels[names[last]!];
    let series = level.get(value) as Series | undefined;
    if (series === undefined) {
      const own: Record<string, string> = {};
      for (const name of names) own[name] = labels[name];
      series = { labels: own, counts: new Float64Array(this.upperBounds.length), sum: 0, count: 0 };
      level.set(value, series);
      this.series.push(series);
    }
    return series;
  }

  /** The values as prom-client's Histogram gives them: cumulative buckets, `+Inf`, sum and count per series. */
  get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: { labels: Record<string, string | number>; value: number; metricName: string }[] }> {
    const values = [];
    for (const series of this.series) {
      let cumulative = 0;
      for (let i = 0; i < this.upperBounds.length; i += 1) {
        cumulative += series.counts[i]!;
        values.push({ labels: { le: this.upperBounds[i]!, ...series.labels }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: { le: '+Inf', ...series.labels }, value: series.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /** Forgets every series (prom-client's Registry.resetMetrics). */
  reset(): void {
    this.root = new Map();
    this.series = [];
  }
}
