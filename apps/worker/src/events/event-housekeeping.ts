import type { Database } from '@domain-index/db';
import type { Clock } from '@domain-index/runtime/clock';
import type { Logger } from '@domain-index/runtime/logger';
import { lockEventLog } from '@domain-index/events/event-log-lock';
import { dropExpiredEventPartitions } from '@domain-index/events/partitions';
import { appendTimedEvents } from './timed-events';

export interface EventHousekeepingOptions {
  /** EVENT_RETENTION_DAYS: days of events kept. */
  retentionDays: number;
  /** How often the time-driven events are appended (default 1 minute). */
  timedEveryMs?: number;
  /** How often expired days are dropped (default 1 hour). */
  retentionEveryMs?: number;
}

/**
 * The change feed's work that time drives, for the sync worker (and the embedded one-process
 * start): `listing.ending_soon` and `listing.ended` every minute, and dropping the days past the
 * retention every hour. A failure is logged as one line and tried again at the next turn; it
 * never stops the caller.
 */
export class EventHousekeeping {
  private nextTimed = 0;
  private nextRetention = 0;
  private readonly timedEveryMs: number;
  private readonly retentionEveryMs: number;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: EventHousekeepingOptions,
  ) {
    this.timedEveryMs = options.timedEveryMs ?? 60_000;
    this.retentionEveryMs = options.retentionEveryMs ?? 3_600_000;
  }

  /** When the next turn has work to do (epoch ms). */
  get nextDue(): number {
    return Math.min(this.nextTimed, this.nextRetention);
  }

  /** Does whatever is due now. */
  async tick(): Promise<void> {
    const now = this.clock.now();
    if (now.getTime() >= this.nextTimed) {
      this.nextTimed = now.getTime() + this.timedEveryMs;
      try {
        const appended = await appendTimedEvents(this.database, now);
        if (appended.endingSoon + appended.ended > 0) this.logger.info(appended, 'appended the events time made');
      } catch (error) {
        this.logger.error({ err: error }, 'could not append the time-driven events; will retry at the next turn');
      }
    }
    if (now.getTime() >= this.nextRetention) {
      this.nextRetention = now.getTime() + this.retentionEveryMs;
      try {
        const dropped = await dropExpiredEventPartitions(this.database, now, this.options.retentionDays, lockEventLog);
        if (dropped.length > 0) this.logger.info({ dropped, retentionDays: this.options.retentionDays }, 'dropped the days of events past the retention');
      } catch (error) {
        this.logger.error({ err: error }, 'could not drop expired events; will retry at the next turn');
      }
    }
  }
}
