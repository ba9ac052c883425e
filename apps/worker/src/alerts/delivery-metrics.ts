import type { Database } from '@domain-index/db';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '@domain-index/runtime/clock';
import type { PoolState } from './delivery-pool';
import { outboxDepth } from './delivery-worker';
import { boundedCollector } from '@domain-index/runtime/bounded-collect';

/**
 * The webhook delivery's metrics, in the process that sends (`sync`, or the embedded start):
 * `domain_index_webhook_deliveries_total{outcome}` per attempt, and the outbox read at each
 * scrape: `domain_index_webhook_outbox_pending` (messages waiting) and
 * `domain_index_webhook_outbox_oldest_seconds` (how long the oldest has waited), with
 * `domain_index_metrics_stale{collector="webhook_outbox"}` saying whether that read answered; and
 * the sending pool's `domain_index_webhook_requests_in_flight` and `domain_index_webhook_endpoints_parked`.
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
    // both gauges come from one statement per scrape, bounded: a scrape while the database is
    // away or stalled keeps the last values (marked stale) rather than hang or report an empty outbox
    const read = boundedCollector(registry, 'webhook_outbox', () => outboxDepth(database, clock.now()));
    new Gauge({
      name: 'domain_index_webhook_outbox_pending',
      help: 'Webhook messages waiting to be sent (due now or waiting for a retry).',
      registers: [registry],
      async collect() {
        const measured = await read();
        if (measured !== undefined) this.set(measured.pending);
      },
    });
    new Gauge({
      name: 'domain_index_webhook_outbox_oldest_seconds',
      help: 'How long the oldest webhook message still waiting has waited, seconds.',
      registers: [registry],
      async collect() {
        const measured = await read();
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
