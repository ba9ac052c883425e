import { ERROR_STATUS, type ErrorCode } from '@domain-index/contract';
import { classifyDatabaseFailure } from '@domain-index/db';
import { Counter, Gauge, type Registry } from 'prom-client';
import { SeriesHistogram } from './series-histogram';

/**
 * What a timed database call does, as the `kind` label of the query metrics: a fixed list, so
 * the label can never grow with requests.
 */
export const STATEMENT_KINDS = [
  'search_page',
  'search_count',
  'search_estimate',
  'lookup',
  'name',
  'lookup_with_key',
  'key_lookup',
  'key_touch',
  'plans',
  'stats',
  'events_page',
  'export',
  'usage_flush',
  'request_log_flush',
  'request_log_prune',
] as const;

/** One of {@link STATEMENT_KINDS}. */
export type StatementKind = (typeof STATEMENT_KINDS)[number];

/** The kinds that write, always on the primary; every other kind is a read. */
export const WRITE_KINDS: readonly StatementKind[] = ['key_touch', 'usage_flush', 'request_log_flush', 'request_log_prune'];

/** The `route` label of a request no route took: one value for every unknown path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Seconds: from a fast indexed lookup (~0.3 ms) to the query timeout (10 s by default). */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * The API process's Prometheus metrics, in a registry of its own (never prom-client's global
 * one: tests run several instances in one process, and a cluster worker reports this registry).
 * Names and units follow Prometheus' naming guide; every label has a fixed set of values.
 */
export class ApiMetrics {
  /** http_request_duration_seconds{method, route, status}: route is the contract's path pattern. */
  readonly requestDuration: SeriesHistogram<'method' | 'route' | 'status'>;
  /** Error responses by the error envelope's code. */
  readonly errorResponses: Counter<'code'>;
  /** Each rate-limit decision: allowed, limited (429) or unavailable (the store down, 503). */
  readonly rateLimitDecisions: Counter<'decision'>;
  /** Database statements by kind and node (the primary, or a replica). */
  readonly queryDuration: SeriesHistogram<'kind' | 'node'>;
  /** Failed database statements by kind, node and failure (`unavailable` or `defect`, db/failures.ts). */
  readonly queryErrors: Counter<'kind' | 'node' | 'failure'>;
  /** Search responses by the accuracy of their `total`. */
  readonly searchTotals: Counter<'accuracy'>;
  /** Reads retried on another node after their node failed them, by the node that failed. */
  readonly readRetries: Counter<'node'>;
  /** 1 while a replica receives reads, 0 while it is left out. */
  readonly replicaInUse: Gauge<'node'>;
  /** The staleness bound of each replica at its last check, seconds. */
  readonly replicaStaleness: Gauge<'node'>;
  /** Requests left out of the request log because its buffer was full (the database slow or away). */
  readonly requestLogDropped: Counter;
  /** Rows exports fetched from their cursors, by format. */
  readonly exportRows: Counter<'format'>;

  constructor(readonly registry: Registry) {
    const registers = [registry];
    // observed on every request and statement: a histogram made for that (series-histogram.ts)
    this.requestDuration = new SeriesHistogram(
      'http_request_duration_seconds',
      'Time from a request arriving to its response finishing, by method, route (the path pattern) and status.',
      ['method', 'route', 'status'],
      REQUEST_BUCKETS,
      registry,
    );
    this.errorResponses = new Counter({
      name: 'domain_index_error_responses_total',
      help: 'Error responses, by the code of the error envelope.',
      labelNames: ['code'],
      registers,
    });
    this.rateLimitDecisions = new Counter({
      name: 'domain_index_rate_limit_decisions_total',
      help: 'Rate-limit decisions: allowed, limited (429) or unavailable (the store could not count: 503).',
      labelNames: ['decision'],
      registers,
    });
    this.queryDuration = new SeriesHistogram(
      'domain_index_db_query_duration_seconds',
      'Database calls of the API, by statement kind and node; failed calls included.',
      ['kind', 'node'],
      QUERY_BUCKETS,
      registry,
    );
    this.queryErrors = new Counter({
      name: 'domain_index_db_query_errors_total',
      help: 'Failed database calls, by statement kind, node and failure: unavailable (retry may help) or defect (the statement was refused).',
      labelNames: ['kind', 'node', 'failure'],
      registers,
    });
    this.exportRows = new Counter({
      name: 'domain_index_export_rows_total',
      help: 'Rows exports fetched from their database cursors, by format (csv or jsonl).',
      labelNames: ['format'],
      registers,
    });
    this.searchTotals = new Counter({
      name: 'domain_index_search_totals_total',
      help: 'Search responses by the accuracy of their total: exact (counted) or planned (the planner estimate).',
      labelNames: ['accuracy'],
      registers,
    });
    this.readRetries = new Counter({
      name: 'domain_index_db_read_retries_total',
      help: 'Reads retried once on another node because their node failed them (gone, refused, or a recovery conflict), by the node that failed.',
      labelNames: ['node'],
      registers,
    });
    this.replicaInUse = new Gauge({
      name: 'domain_index_replica_in_use',
      help: '1 while the replica receives reads, 0 while it is left out (unreachable, not in recovery, or too far behind).',
      labelNames: ['node'],
      // with WORKERS, the primary's /metrics shows 0 when any worker has left the replica out
      aggregator: 'min',
      registers,
    });
    this.replicaStaleness = new Gauge({
      name: 'domain_index_replica_staleness_seconds',
      help: 'How far behind the primary the replica can be, as measured at its last check (0 while it has replayed all the primary wrote).',
      labelNames: ['node'],
      // with WORKERS, the largest any worker measured
      aggregator: 'max',
      registers,
    });
    this.requestLogDropped = new Counter({
      name: 'domain_index_request_log_dropped_total',
      help: "Requests left out of the dashboard's request log because the instance's buffer was full (writes to the database failing or too slow).",
      registers,
    });
    // Every series of a fixed label set starts at 0, so a rate() over it exists before the first event.
    for (const code of Object.keys(ERROR_STATUS) as ErrorCode[])
      this.errorResponses.inc({ code }, 0);
    for (const decision of ['allowed', 'limited', 'unavailable'])
      this.rateLimitDecisions.inc({ decision }, 0);
    for (const accuracy of ['exact', 'planned']) this.searchTotals.inc({ accuracy }, 0);
  }

  /** Times one database call of `kind` on `node`, counting it as an error when it throws. */
  async timeQuery<T>(kind: StatementKind, node: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await run();
    } catch (error) {
      this.queryErrors.inc({ kind, node, failure: classifyDatabaseFailure(error).kind });
      throw error;
    } finally {
      this.queryDuration.observe({ kind, node }, (performance.now() - started) / 1000);
    }
  }
}
