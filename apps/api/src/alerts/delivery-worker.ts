import { and, inArray, lt, sql, webhookAttempts, webhookDeliveries, type Database } from '@domain-index/db';
import type { Mailer } from '../mail/mailer';
import type { BackgroundTask } from '../background/background-loop';
import { DELIVERY_LOG_DAYS } from './delivery-log';
import { sendDueDigests } from './digests';
import { webhookDisabledNotice } from './disabled-notice';
import { fillOutbox } from './outbox';
import { cancelMessagesOfStoppedOwners } from './owner-state';
import { sendDueMessages, type SenderSettings } from './webhook-sender';

/** How often the webhook outbox is filled and sent: a match reaches its receiver about this long after its batch commits. */
export const DELIVERY_EVERY_MS = 500;

export interface DeliveryWorkerOptions extends SenderSettings {
  database: Database;
  /** Email digests: none without SMTP_URL. */
  mailer?: Mailer | undefined;
  publicUrl: string;
  /** The shared secret of the unsubscribe links. */
  secret: Buffer;
}

/**
 * The alerts' delivery, run by the `sync` worker (and by the embedded start in its own
 * process): cancel the messages of owners no longer live (a key past its expiry), fill the
 * webhook outbox from the change feed, send what is due, mail the digests that are due, and
 * forget attempts older than the delivery log keeps (7 days), once an hour.
 */
export function deliveryTask(options: DeliveryWorkerOptions): BackgroundTask {
  const { database, clock, logger } = options;
  // with SMTP, an owner whose webhook is turned off is told by mail too (the dashboard shows it)
  const settings: SenderSettings =
    options.mailer === undefined || options.onDisabled !== undefined
      ? options
      : { ...options, onDisabled: webhookDisabledNotice({ database, mailer: options.mailer, publicUrl: options.publicUrl, logger }) };
  let nextCleanup = 0;
  return {
    name: 'alert deliveries',
    async run() {
      const now = clock.now();
      const cancelled = await cancelMessagesOfStoppedOwners(database, now);
      if (cancelled > 0) logger.info({ cancelled }, 'cancelled webhook messages of owners no longer live');
      const queued = await fillOutbox(database, now);
      if (queued > 0) logger.debug({ queued }, 'queued webhook messages');
      await sendDueMessages(database, settings);
      if (options.mailer !== undefined) {
        const mailed = await sendDueDigests(database, { mailer: options.mailer, clock, logger, publicUrl: options.publicUrl, secret: options.secret });
        if (mailed > 0) logger.info({ mailed }, 'sent email digests');
      }
      if (now.getTime() >= nextCleanup) {
        nextCleanup = now.getTime() + 3_600_000;
        const before = new Date(now.getTime() - DELIVERY_LOG_DAYS * 86_400_000);
        await database.db.delete(webhookAttempts).where(lt(webhookAttempts.at, before));
        await database.db.delete(webhookDeliveries).where(and(inArray(webhookDeliveries.status, ['delivered', 'failed', 'cancelled']), lt(webhookDeliveries.createdAt, before)));
      }
    },
  };
}

/** Messages waiting to be sent, and how long the oldest has waited: for the outbox gauges. */
export async function outboxDepth(database: Database, now: Date): Promise<{ pending: number; oldestSeconds: number }> {
  const [row] = await database.rows<{ pending: number; oldest: number | string }>(
    sql`select count(*)::int as pending, coalesce(extract(epoch from ${now.toISOString()}::timestamptz - min(created_at)), 0)::float8 as oldest
        from webhook_deliveries where status = 'pending'`,
  );
  return { pending: row?.pending ?? 0, oldestSeconds: Math.max(0, Number(row?.oldest ?? 0)) };
}
