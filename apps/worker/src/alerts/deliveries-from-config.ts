import type { Database } from '@domain-index/db';
import type { Registry } from 'prom-client';
import type { Clock } from '@domain-index/runtime/clock';
import type { Config } from '@domain-index/config/config';
import type { Logger } from '@domain-index/runtime/logger';
import { Mailer } from '@domain-index/mail/mailer';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { AlertContext } from '@domain-index/alerts/alert-deps';
import { DeliveryMetrics } from './delivery-metrics';
import { deliveryTask, type Deliveries } from './delivery-worker';

/** The mailer of SMTP_URL and SMTP_FROM, as the configuration checked them; none without SMTP_URL. */
export function mailerFromConfig(config: Config, logger: Logger): Mailer | undefined {
  return config.mail === undefined ? undefined : new Mailer({ ...config.mail, logger });
}

/**
 * The alerts' delivery as the configuration says: the allow-list, the retry schedule, the
 * disable window, the sender's concurrency and timeouts, the mailer, and the metrics in
 * `registry`. Not started: the caller starts and stops it.
 */
export async function deliveriesFromConfig(options: { config: Config; database: Database; clock: Clock; logger: Logger; registry: Registry; mailer: Mailer | undefined }): Promise<Deliveries> {
  const { config, database, clock, logger, registry, mailer } = options;
  const context = new AlertContext(database, { allowList: config.webhookAllowList });
  const metrics = new DeliveryMetrics(registry, database, clock);
  const deliveries = deliveryTask({
    database,
    clock,
    logger,
    mailer,
    publicUrl: config.publicUrl,
    secret: await loadCursorSecret(database),
    secretBox: () => context.secretBox(),
    allowList: config.webhookAllowList,
    schedule: config.webhookRetrySchedule,
    disableAfterMs: config.webhookDisableAfterMs,
    concurrency: config.webhookConcurrency,
    timeoutMs: config.webhookTimeouts.totalMs,
    connectTimeoutMs: config.webhookTimeouts.connectMs,
    responseTimeoutMs: config.webhookTimeouts.responseMs,
    onOutcome: (outcome) => metrics.outcomes.inc({ outcome }),
  });
  metrics.watchPool(() => deliveries.pool.state());
  return deliveries;
}
