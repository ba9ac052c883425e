import type { Database } from '@domain-index/db';
import type { Registry } from 'prom-client';
import { CliError } from '../cli-error';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createMailer, type Mailer } from '../mail/mailer';
import { loadCursorSecret } from '../search/cursor-secret';
import type { BackgroundTask } from '../background/background-loop';
import { AlertContext } from './alert-deps';
import { DeliveryMetrics } from './delivery-metrics';
import { deliveryTask } from './delivery-worker';

/** The mailer of SMTP_URL and SMTP_FROM (none without SMTP_URL); a bad value stops the command in one line. */
export function mailerFromEnvironment(logger: Logger): Mailer | undefined {
  const created = createMailer(process.env, logger);
  if (!created.ok) throw new CliError(`invalid environment: ${created.reason}`);
  return created.mailer;
}

/**
 * The alerts' delivery as the configuration says: the allow-list, the retry schedule, the
 * disable window, the mailer, and the metrics in `registry`.
 */
export async function deliveriesFromConfig(options: { config: Config; database: Database; clock: Clock; logger: Logger; registry: Registry; mailer: Mailer | undefined }): Promise<BackgroundTask> {
  const { config, database, clock, logger, registry, mailer } = options;
  const context = new AlertContext(database, { allowList: config.webhookAllowList });
  const metrics = new DeliveryMetrics(registry, database, clock);
  return deliveryTask({
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
    onOutcome: (outcome) => metrics.outcomes.inc({ outcome }),
  });
}
