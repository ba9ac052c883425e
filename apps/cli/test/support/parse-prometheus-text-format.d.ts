/** The parser's own description of what it returns (the package ships no types). */
declare module 'parse-prometheus-text-format' {
  interface Sample {
    labels?: Record<string, string>;
    value?: string;
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  interface MetricFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: Sample[];
  }
  /** Parses the Prometheus text exposition; throws on a line that is not valid. */
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
