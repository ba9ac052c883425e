import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_SCHEDULE,
  DISABLE_AFTER_MS,
  failingSince,
  firstAttemptAt,
  nextAttemptAt,
  parseRetrySchedule,
  shouldDisable,
  withJitter,
} from './retry-schedule';

const failedAt = new Date('2026-11-21T07:00:00.000Z');
const seconds = (date: Date | null) =>
  date === null ? null : (date.getTime() - failedAt.getTime()) / 1000;
// random() of 0.5 is no jitter; 0 the earliest (-10%); just under 1 the latest (+10%)
const middle = () => 0.5;

describe('WEBHOOK_RETRY_SCHEDULE', () => {
  it('defaults to immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(DEFAULT_RETRY_SCHEDULE).toEqual([
      0,
      5,
      5 * 60,
      30 * 60,
      2 * 3600,
      5 * 3600,
      10 * 3600,
      10 * 3600,
    ]);
    for (const value of [undefined, '', '  '])
      expect(parseRetrySchedule(value)).toEqual({ ok: true, schedule: DEFAULT_RETRY_SCHEDULE });
  });

  it.each<[string, number[]]>([
    ['0,1,2', [0, 1, 2]],
    [' 0 , 1 ,2 ', [0, 1, 2]],
    ['5', [5]],
    ['0,86400', [0, 86400]],
  ])('reads %j', (value, schedule) => {
    expect(parseRetrySchedule(value)).toEqual({ ok: true, schedule });
  });

  it.each([
    ['0,1,', '""'],
    ['0,-1', '"-1"'],
    ['0,1.5', '"1.5"'],
    ['0,5s', '"5s"'],
    ['0;5', '"0;5"'],
    ['0,86401', '"86401"'],
  ])('refuses %j, naming the bad entry', (value, named) => {
    expect(parseRetrySchedule(value)).toEqual({
      ok: false,
      reason: `must be comma-separated whole seconds from 0 to 86400 (like 0,5,300), not ${named}`,
    });
  });

  it('refuses more than 50 attempts', () => {
    expect(parseRetrySchedule(Array.from({ length: 51 }, () => '1').join(','))).toEqual({
      ok: false,
      reason: 'must hold at most 50 attempts',
    });
  });
});

describe('the next attempt of a failed delivery', () => {
  it.each<[number, number | null]>([
    [1, 5],
    [2, 300],
    [3, 1800],
    [4, 7200],
    [5, 18000],
    [6, 36000],
    [7, 36000],
    [8, null], // the eighth attempt was the last
    [9, null],
    [0, null], // no attempt was made: not a retry
  ])('after attempt %i failed: %j seconds later (without jitter)', (attemptsMade, expected) => {
    expect(
      seconds(
        nextAttemptAt({ schedule: DEFAULT_RETRY_SCHEDULE, attemptsMade, failedAt, random: middle }),
      ),
    ).toBe(expected);
  });

  it.each<[number, number]>([
    [0, 270],
    [0.25, 285],
    [0.5, 300],
    [0.75, 315],
    [0.999_999, 329.999], // a Date keeps whole milliseconds
  ])('is jittered by ±10%%: random %d gives %d s for a 300 s step', (random, expected) => {
    const at = seconds(
      nextAttemptAt({
        schedule: DEFAULT_RETRY_SCHEDULE,
        attemptsMade: 2,
        failedAt,
        random: () => random,
      }),
    );
    expect(at).toBeCloseTo(expected, 3);
  });

  it('stays within ±10% of every step, whatever the random draw', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attemptsMade, draw) => {
          const step = DEFAULT_RETRY_SCHEDULE[attemptsMade]!;
          const at = seconds(
            nextAttemptAt({
              schedule: DEFAULT_RETRY_SCHEDULE,
              attemptsMade,
              failedAt,
              random: () => draw,
            }),
          )!;
          expect(at).toBeGreaterThanOrEqual(step * 0.9);
          expect(at).toBeLessThan(step * 1.1 + 1e-9);
        },
      ),
    );
  });

  it('spreads real random draws: many deliveries do not retry in the same millisecond', () => {
    const times = new Set(
      Array.from({ length: 200 }, () =>
        nextAttemptAt({ schedule: DEFAULT_RETRY_SCHEDULE, attemptsMade: 3, failedAt })!.getTime(),
      ),
    );
    expect(times.size).toBeGreaterThan(150);
  });

  it.each<[string, number, number | undefined, number]>([
    ['a later Retry-After wins', 1, 60, 60],
    ['an earlier Retry-After does not hurry it', 2, 60, 300],
    ['Retry-After 0 changes nothing', 1, 0, 5],
    ['Retry-After is honoured up to a day', 1, 3 * 86_400, 86_400],
    ['no Retry-After', 1, undefined, 5],
  ])('%s', (_what, attemptsMade, retryAfterSeconds, expected) => {
    expect(
      seconds(
        nextAttemptAt({
          schedule: DEFAULT_RETRY_SCHEDULE,
          attemptsMade,
          failedAt,
          retryAfterSeconds,
          random: middle,
        }),
      ),
    ).toBe(expected);
  });

  it('does not add attempts for a Retry-After', () => {
    expect(
      nextAttemptAt({
        schedule: DEFAULT_RETRY_SCHEDULE,
        attemptsMade: 8,
        failedAt,
        retryAfterSeconds: 60,
      }),
    ).toBeNull();
  });

  it('follows a short test schedule', () => {
    const schedule = [0, 1, 2];
    const at = (attemptsMade: number) =>
      seconds(nextAttemptAt({ schedule, attemptsMade, failedAt, random: middle }));
    expect([at(1), at(2), at(3)]).toEqual([1, 2, null]);
  });
});

describe('the first attempt of a delivery', () => {
  it('is immediate on the default schedule, jitter or not (10% of 0 is 0)', () => {
    expect(firstAttemptAt(DEFAULT_RETRY_SCHEDULE, failedAt, () => 0.99)).toEqual(failedAt);
  });

  it('waits the first step of a schedule that starts later', () => {
    expect(seconds(firstAttemptAt([10, 20], failedAt, middle))).toBe(10);
  });
});

describe('jitter', () => {
  it.each<[number, number, number]>([
    [100, 0, 90],
    [100, 0.5, 100],
    [0, 0.9, 0],
  ])('of %d s with draw %d is %d s', (delay, draw, expected) => {
    expect(withJitter(delay, () => draw)).toBeCloseTo(expected, 9);
  });
});

describe('disabling an endpoint that keeps failing', () => {
  const day = 24 * 60 * 60 * 1000;
  const start = new Date('2026-11-01T00:00:00.000Z');
  const after = (ms: number) => new Date(start.getTime() + ms);

  it('tracks the start of the current run of failures', () => {
    let since: Date | null = null;
    since = failingSince(since, { ok: false, at: start });
    expect(since).toEqual(start);
    since = failingSince(since, { ok: false, at: after(day) });
    expect(since).toEqual(start); // still the first failure of the run
    since = failingSince(since, { ok: true, at: after(2 * day) });
    expect(since).toBeNull();
    since = failingSince(since, { ok: false, at: after(3 * day) });
    expect(since).toEqual(after(3 * day));
  });

  it.each<[string, Date | null, number, boolean]>([
    ['not failing', null, 10 * day, false],
    ['failing for 4 days 23 h', start, 5 * day - 3_600_000, false],
    ['failing for exactly 5 days', start, 5 * day, true],
    ['failing for 6 days', start, 6 * day, true],
  ])('%s: disabled %j', (_what, since, elapsed, expected) => {
    expect(shouldDisable(since, after(elapsed))).toBe(expected);
  });

  it('is 5 days unless the caller passes its own window', () => {
    expect(DISABLE_AFTER_MS).toBe(5 * day);
    expect(shouldDisable(start, after(3_000), 3_000)).toBe(true);
    expect(shouldDisable(start, after(2_999), 3_000)).toBe(false);
  });

  it('a success within the 5 days starts the count again', () => {
    let since = failingSince(null, { ok: false, at: start });
    since = failingSince(since, { ok: true, at: after(4 * day) });
    since = failingSince(since, { ok: false, at: after(4 * day + 1) });
    expect(shouldDisable(since, after(6 * day))).toBe(false);
    expect(shouldDisable(since, after(9 * day + 1))).toBe(true);
  });
});
