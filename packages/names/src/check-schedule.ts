import type { RegistrationPhase } from '@domain-index/contract';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How often a watched name is checked in each phase; see nextCheckAt for the exceptions. */
export const CHECK_INTERVALS: Readonly<Record<RegistrationPhase, number>> = {
  registered: DAY,
  grace: HOUR,
  redemption: HOUR,
  pending_delete: 10 * MINUTE,
  // a name that dropped may be registered again within minutes of the drop: hourly for a week,
  // then daily (see nextCheckAt)
  available: HOUR,
  // no RDAP service for the TLD: the bootstrap is read again daily, so is the name
  unknown: DAY,
};

/** What the schedule looks at. */
export interface ScheduleInput {
  phase: RegistrationPhase;
  expiresAt: Date | null;
  expectedDropAt: Date | null;
  /** When the name became available, for the week of hourly checks after a drop. */
  availableSince?: Date | null;
}

/**
 * When a watched name is checked next, following its life: daily while registered far from
 * expiry, hourly within a day of its expiry and in grace and redemption, every 10 minutes in
 * pending delete and in the 24 hours around its expected drop, hourly for a week after it
 * became available and daily after. Each interval is spread by ±20 % (`random`), so names added
 * together do not stay due together.
 */
export function nextCheckAt(input: ScheduleInput, now: Date, random: () => number = Math.random): Date {
  const at = now.getTime();
  let interval = CHECK_INTERVALS[input.phase];
  if (input.expectedDropAt !== null && Math.abs(input.expectedDropAt.getTime() - at) <= 12 * HOUR) interval = 10 * MINUTE;
  else if (input.phase === 'registered' && input.expiresAt !== null && input.expiresAt.getTime() - at <= DAY) interval = HOUR;
  else if (input.phase === 'available' && input.availableSince != null && at - input.availableSince.getTime() > 7 * DAY) interval = DAY;
  const spread = interval * (0.8 + 0.4 * random());
  return new Date(at + Math.round(spread));
}

/** After a failed attempt with no Retry-After: 1 min, doubling per failure, at most the phase's interval (or an hour before the first answer). */
export function retryAfterFailure(failures: number, phase: RegistrationPhase | null, now: Date): Date {
  const cap = phase === null ? HOUR : Math.max(CHECK_INTERVALS[phase], 10 * MINUTE);
  return new Date(now.getTime() + Math.min(cap, MINUTE * 2 ** Math.min(failures, 20)));
}
