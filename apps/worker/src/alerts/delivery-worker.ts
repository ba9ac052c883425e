import { and, inArray, lt, sql, webhookAttempts, webhookDeliveries, type Database } from '@domain-index/db';
import type { Mailer } from '@domain-index/mail/mailer';
import { BackgroundLoop } from '@domain-index/runtime/background-loop';
import { DELIVERY_LOG_DAYS } from '@domain-index/alerts/delivery-log';
import { sendConfirmations } from '@domain-index/alerts/digest-recipients';
import { sendDueDigests } from './digests';
import { webhookDisabledNotice } from './disabled-notice';
import { fillOutbox } from '@domain-index/alerts/outbox';
import { cancelMessagesOfStoppedOwners } from '@domain-index/alerts/owner-state';
import { DeliveryPool } from './delivery-pool';
import type { SenderSettings } from './webhook-sender';

/** How often the webhook outbox is filled: a match is queued about this long after its batch commits. */
export const DELIVERY_EVERY_MS = 500;
/** How often due email digests are looked for (they are hourly or daily). */
export const DIGESTS_EVERY_MS = 5_000;

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
 * process), as three loops that never wait for each other: the messages of owners no longer live
 * (a key past its expiry) are cancelled and the outbox is filled from the change feed every
 * 500 ms (and attempts older than the delivery log keeps, 7 days, are forgotten once
 * an hour); the webhook messages are sent by a continuous pool (delivery-pool.ts), so a receiver
 * that hangs holds one slot, never the fill, the digests or the other receivers; the email
 * digests that are due are mailed, after the confirmation links that were asked for.
 */
export class Deliveries {
  readonly pool: DeliveryPool;
  private readonly loops: BackgroundLoop[];
  private nextCleanup = 0;

  constructor(private readonly options: DeliveryWorkerOptions) {
    const { database, logger } = options;
    // with SMTP, an owner whose webhook is turned off is told by mail too (the dashboard shows it)
    const settings: SenderSettings =
      options.mailer === undefined || options.onDisabled !== undefined
        ? options
        : { ...options, onDisabled: webhookDisabledNotice({ database, mailer: options.mailer, publicUrl: options.publicUrl, logger }) };
    this.pool = new DeliveryPool(database, settings);
    this.loops = [new BackgroundLoop([{ name: 'webhook outbox', run: () => this.fill() }], logger, DELIVERY_EVERY_MS)];
    if (options.mailer !== undefined) this.loops.push(new BackgroundLoop([{ name: 'email digests', run: () => this.digests() }], logger, DIGESTS_EVERY_MS));
  }

  start(): void {
    for (const loop of this.loops) loop.start();
    this.pool.start();
  }

  /** Stops the loops after their turn in flight, and the pool once its requests in flight are recorded. */
  async stop(): Promise<void> {
    await Promise.all([...this.loops.map((loop) => loop.stop()), this.pool.stop()]);
  }

  /** One turn of everything, in order (fill, send what is due, digests): for tests that deliver by turns. */
  async run(): Promise<void> {
    await this.fill();
    await this.pool.drain();
    await this.digests();
  }

  private async fill(): Promise<void> {
    const { database, clock, logger } = this.options;
    const now = clock.now();
    const cancelled = await cancelMessagesOfStoppedOwners(database, now);
    if (cancelled > 0) logger.info({ cancelled }, 'cancelled webhook messages of owners no longer live');
    const queued = await fillOutbox(database, now);
    if (queued > 0) logger.debug({ queued }, 'queued webhook messages');
    if (now.getTime() >= this.nextCleanup) {
      this.nextCleanup = now.getTime() + 3_600_000;
      const before = new Date(now.getTime() - DELIVERY_LOG_DAYS * 86_400_000);
      await database.db.delete(webhookAttempts).where(lt(webhookAttempts.at, before));
      await database.db.delete(webhookDeliveries).where(and(inArray(webhookDeliveries.status, ['delivered', 'failed', 'cancelled']), lt(webhookDeliveries.createdAt, before)));
    }
  }

  private async digests(): Promise<void> {
    const { mailer, clock, logger, publicUrl, secret, database } = this.options;
    if (mailer === undefined) return;
    // confirmation links first: a digest waits for its address to be confirmed
    const confirmations = await sendConfirmations(database, { mailer, clock, logger, publicUrl });
    if (confirmations > 0) logger.info({ mailed: confirmations }, 'sent digest confirmation emails');
    const mailed = await sendDueDigests(database, { mailer, clock, logger, publicUrl, secret });
    if (mailed > 0) logger.info({ mailed }, 'sent email digests');
  }
}

/** The alerts' delivery: `start()` runs its loops, `run()` one turn of each (see Deliveries). */
export function deliveryTask(options: DeliveryWorkerOptions): Deliveries {
  return new Deliveries(options);
}

/** Messages waiting to be sent, and how long the oldest has waited: for the outbox gauges. */
export async function outboxDepth(database: Database, now: Date): Promise<{ pending: number; oldestSeconds: number }> {
  const [row] = await database.rows<{ pending: number; oldest: number | string }>(
    sql`select count(*)::int as pending, coalesce(extract(epoch from ${now.toISOString()}::timestamptz - min(created_at)), 0)::float8 as oldest
        from webhook_deliveries where status = 'pending'`,
  );
  return { pending: row?.pending ?? 0, oldestSeconds: Math.max(0, Number(row?.oldest ?? 0)) };
}
