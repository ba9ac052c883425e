/**
 * Seconds to wait before each attempt of a delivery, each counted from the end of the attempt
 * before (the first from when the delivery was queued): immediately, 5 s, 5 min, 30 min, 2 h,
 * 5 h, 10 h, 10 h, as Svix documents its schedule. Eight attempts over about 27.6 hours.
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [
  0, 5, 300, 1800, 7200, 18000, 36000, 36000,
];

/** Longest single step WEBHOOK_RETRY_SCHEDULE may hold: one day. */
const MAX_STEP_SECONDS = 86_400;
/** Most attempts WEBHOOK_RETRY_SCHEDULE may hold. */
const MAX_ATTEMPTS = 50;

/** Each delay is moved by a random amount up to this share of it, either way. */
export const JITTER = 0.1;

/** Longest a Retry-After is honoured: a receiver cannot park its deliveries for longer. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/** How long every attempt to an endpoint must have failed before its webhook is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/**
 * Parses WEBHOOK_RETRY_SCHEDULE: comma-separated whole seconds, the delay before each attempt
 * (`0,5,300` = at once, 5 s later, 5 min after that: three attempts). Unset or blank gives
 * DEFAULT_RETRY_SCHEDULE. Short schedules are for tests, which then run in seconds.
 */
export function parseRetrySchedule(
  value: string | undefined,
): { ok: true; schedule: readonly number[] } | { ok: false; reason: string } {
  if (value === undefined || value.trim() === '')
    return { ok: true, schedule: DEFAULT_RETRY_SCHEDULE };
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !/^\d+$/.test(entry) || Number(entry) > MAX_STEP_SECONDS);
  if (bad !== undefined) {
    return {
      ok: false,
      reason: `must be comma-separated whole seconds from 0 to ${MAX_STEP_SECONDS} (like 0,5,300), not "${bad}"`,
    };
  }
  if (entries.length > MAX_ATTEMPTS)
    return { ok: false, reason: `must hold at most ${MAX_ATTEMPTS} attempts` };
  return { ok: true, schedule: entries.map(Number) };
}

/** `seconds` moved by up to ±JITTER of itself, uniformly (`random` in [0, 1)), so retries of many deliveries spread out. */
export function withJitter(seconds: number, random: () => number = Math.random): number {
  return seconds * (1 + JITTER * (2 * random() - 1));
}

/** When the first attempt of a delivery queued at `queuedAt` is due. */
export function firstAttemptAt(
  schedule: readonly number[],
  queuedAt: Date,
  random: () => number = Math.random,
): Date {
  return new Date(queuedAt.getTime() + withJitter(schedule[0] ?? 0, random) * 1000);
}

/**
 * When the next attempt of a delivery is due after its attempt number `attemptsMade` (from 1)
 * failed at `failedAt`, or null when that was the schedule's last. A Retry-After asking for
 * longer than the schedule's jittered delay is honoured, up to MAX_RETRY_AFTER_SECONDS; it does
 * not add attempts.
 */
export function nextAttemptAt(input: {
  schedule: readonly number[];
  attemptsMade: number;
  failedAt: Date;
  retryAfterSeconds?: number | undefined;
  random?: () => number;
}): Date | null {
  const step = input.schedule[input.attemptsMade];
  if (!Number.isInteger(input.attemptsMade) || input.attemptsMade < 1 || step === undefined)
    return null;
  const scheduled = withJitter(step, input.random);
  const asked = Math.min(input.retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS);
  return new Date(input.failedAt.getTime() + Math.max(scheduled, asked) * 1000);
}

/**
 * The start of an endpoint's current run of failures after an attempt at `at`: cleared by a
 * success, kept by another failure, begun by a first failure.
 */
export function failingSince(
  previous: Date | null,
  attempt: { ok: boolean; at: Date },
): Date | null {
  if (attempt.ok) return null;
  return previous ?? attempt.at;
}

/**
 * Whether an endpoint failing since `since` (null: not failing) has failed continuously long
 * enough at `now` to be disabled: DISABLE_AFTER_MS (5 days) unless the caller passes its own
 * window (a test's short schedule).
 */
export function shouldDisable(
  since: Date | null,
  now: Date,
  windowMs: number = DISABLE_AFTER_MS,
): boolean {
  return since !== null && now.getTime() - since.getTime() >= windowMs;
}
