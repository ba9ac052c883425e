import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One sample line of an exposition: its series name (with any _bucket/_sum/_count suffix), labels and value. */
export interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/gy;

/**
 * Reads a /metrics body. Its syntax is checked by parse-prometheus-text-format, an independent
 * parser of the text format that throws on any invalid line; the samples are then read here,
 * because that parser drops the labels of labelled histograms. Every sample must belong to a
 * family declared with # TYPE, and a histogram's +Inf bucket must equal its count.
 */
export function parseExposition(text: string): Series[] {
  parsePrometheusTextFormat(text);
  const types = new Map<string, string>();
  const series: Series[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type !== null) types.set(type[1]!, type[2]!);
    if (line.startsWith('#')) continue;
    const sample = SAMPLE.exec(line);
    if (sample === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    const body = sample[2] ?? '';
    let match: RegExpExecArray | null;
    while (LABEL.lastIndex < body.length && (match = LABEL.exec(body)) !== null)
      labels[match[1]!] = match[2]!;
    if (LABEL.lastIndex !== body.length && body !== '') throw new Error(`labels not read: ${line}`);
    const name = sample[1]!;
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(family)) throw new Error(`sample of an undeclared family: ${line}`);
    series.push({ name, labels, value: Number(sample[3]) });
  }
  for (const bucket of series.filter((s) => s.name.endsWith('_bucket') && s.labels.le === '+Inf')) {
    const { le: _le, ...labels } = bucket.labels;
    const count = series.find(
      (s) => s.name === bucket.name.replace(/_bucket$/, '_count') && sameLabels(s.labels, labels),
    );
    if (count?.value !== bucket.value)
      throw new Error(
        `${bucket.name}: +Inf bucket ${bucket.value} is not the count ${count?.value}`,
      );
  }
  return series;
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/**
 * The sum of the values of `name`'s series whose labels include `match`. A histogram is
 * summed by its `_count` (the number of observations).
 */
export function total(
  series: readonly Series[],
  name: string,
  match: Record<string, string> = {},
): number {
  const histogram = series.some((s) => s.name === `${name}_count`);
  const wanted = histogram ? `${name}_count` : name;
  return series
    .filter(
      (s) =>
        s.name === wanted &&
        Object.entries(match).every(([label, value]) => s.labels[label] === value),
    )
    .reduce((sum, s) => sum + s.value, 0);
}

/** A series' identity: name and sorted labels. */
export function seriesKey(series: Series): string {
  const labels = Object.entries(series.labels).sort(([a], [b]) => a.localeCompare(b));
  return `${series.name}{${labels.map(([label, value]) => `${label}="${value}"`).join(',')}}`;
}
