import { describe, expect, it } from 'vitest';
import { nextSyncDue, retryDelayMs } from './sync-schedule';

const minutes = (ms: number) => ms / 60_000;

describe('the delay before a failed source is tried again', () => {
  it.each([
    // failures in a row, the source's interval (minutes), the delay (minutes)
    [1, 1440, 1],
    [2, 1440, 5],
    [3, 1440, 15],
    [4, 1440, 60],
    [5, 1440, 60],
    [40, 1440, 60],
    [0, 1440, 1],
    [3, 60, 15],
    [4, 60, 60],
    [9, 60, 60],
  ])('after %i failure(s) in a row of a source synced every %i minutes: %i minutes', (failures, every, expected) => {
    expect(minutes(retryDelayMs(failures, every))).toBe(expected);
  });

  it('is never longer than the source interval', () => {
    const hourly = [30, 90, 600].map((step) => step * 60_000);
    expect([1, 2, 3, 4].map((failures) => minutes(retryDelayMs(failures, 60, hourly)))).toEqual([30, 60, 60, 60]);
  });

  it('follows a schedule given in milliseconds', () => {
    expect([1, 2, 3, 4].map((failures) => retryDelayMs(failures, 60, [200, 400, 800]))).toEqual([200, 400, 800, 800]);
  });
});

describe('when a source is due after its last sync', () => {
  const finishedAt = new Date('2026-11-21T12:00:00.000Z');
  it.each([
    ['applied', 0, '2026-11-22T12:00:00.000Z'],
    ['unchanged', 0, '2026-11-22T12:00:00.000Z'],
    ['failed', 1, '2026-11-21T12:01:00.000Z'],
    ['failed', 2, '2026-11-21T12:05:00.000Z'],
    ['failed', 3, '2026-11-21T12:15:00.000Z'],
    ['failed', 4, '2026-11-21T13:00:00.000Z'],
    ['failed', 12, '2026-11-21T13:00:00.000Z'],
    // a corrupt feed is fetched again at the next interval, not early
    ['rejected', 1, '2026-11-22T12:00:00.000Z'],
    ['rejected', 3, '2026-11-22T12:00:00.000Z'],
    [undefined, 0, '2026-11-22T12:00:00.000Z'],
  ] as const)('a daily source whose last sync was %s (%i in a row) is due at %s', (outcome, failuresInARow, due) => {
    expect(nextSyncDue(1440, { outcome, finishedAt, failuresInARow }).toISOString()).toBe(due);
  });
});
