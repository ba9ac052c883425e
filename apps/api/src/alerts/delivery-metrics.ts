import type { Database } from '@domain-index/db';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock';
import type { PoolState } from './delivery-pool';
import { outboxDepth } from './delivery-worker';

/**
 * The webhook delivery's metrics, in the process that sends (`sync`, or the embedded start):
 * `domain_index_webhook_deliveries_total{outcome}` per attempt, and the outbox read at each
 * scrape: `domain_index_webhook_outbox_pending` (messages waiting) and
 * `domain_index_webhook_outbox_oldest_seconds` (how long the oldest has waited); and the sending
 * pool's `domain_index_webhook_requests_in_flight` and `domain_index_webhook_endpoints_parked`.
 */
export class DeliveryMetrics {
  readonly outcomes: Counter<'outcome'>;
  private pool: () => PoolState = () => ({ inFlight: 0, parked: 0 });

  constructor(registry: Registry, database: Database, clock: Clock) {
    this.outcomes = new Counter({
      name: 'domain_index_webhook_deliveries_total',
      help: 'Webhook attempts by outcome: delivered (2xx), retrying, failed (its retries spent), disabled (the webhook was turned off).',
      labelNames: ['outcome'],
      registers: [registry],
    });
    for (const outcome of ['delivered', 'retrying', 'failed', 'disabled']) this.outcomes.inc({ outcome }, 0);
    let depth: Promise<{ pending: number; oldestSeconds: number }> | undefined;
    // both gauges come from one statement per scrape
    const read = () => (depth ??= outboxDepth(database, clock.now()).finally(() => setTimeout(() => (depth = undefined), 1_000).unref()));
    new Gauge({
      name: 'domain_index_webhook_outbox_pending',
      help: 'Webhook messages waiting to be sent (due now or waiting for a retry).',
      registers: [registry],
      async collect() {
        // a scrape while the database is away keeps the last value rather than report an empty outbox
        const measured = await read().catch(() => undefined);
        if (measured !== undefined) this.set(measured.pending);
      },
    });
    new Gauge({
      name: 'domain_index_webhook_outbox_oldest_seconds',
      help: 'How long the oldest webhook message still waiting has waited, seconds.',
      registers: [registry],
      async collect() {
        const measured = await read().catch(() => undefined);
        if (measured !== undefined) this.set(measured.oldestSeconds);
      },
    });
    const pool = () => this.pool();
    new Gauge({
      name: 'domain_index_webhook_requests_in_flight',
      help: 'Webhook requests this sender has in flight (at most WEBHOOK_CONCURRENCY, one per endpoint).',
      registers: [registry],
      collect() {
        this.set(pool().inFlight);
      },
    });
    new Gauge({
      name: 'domain_index_webhook_endpoints_parked',
      help: 'Webhook endpoints (URL origins) this sender has parked because they kept timing out; their messages wait.',
      registers: [registry],
      collect() {
        this.set(pool().parked);
      },
    });
  }

  /** Reads the sending pool's state at each scrape. */
  watchPool(state: () => PoolState): void {
    this.pool = state;
  }
}
