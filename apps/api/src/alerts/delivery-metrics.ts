import type { Database } from '@domain-index/db';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock';
import { outboxDepth } from './delivery-worker';

/**
 * The webhook delivery's metrics, in the process that sends (`sync`, or the embedded start):
 * `domain_index_webhook_deliveries_total{outcome}` per attempt, and the outbox read at each
 * scrape: `domain_index_webhook_outbox_pending` (messages waiting) and
 * `domain_index_webhook_outbox_oldest_seconds` (how long the oldest has waited).
 */
export class DeliveryMetrics {
  readonly outcomes: Counter<'outcome'>;

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
  }
}
