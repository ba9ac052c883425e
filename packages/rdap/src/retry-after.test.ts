import { describe, expect, it } from 'vitest';
import { backoffMs, retryAfterDate } from './retry-after';

describe('retryAfterDate', () => {
  const now = new Date('2026-06-01T12:00:00Z');
  it.each([
    ['120', '2026-06-01T12:02:00.000Z'],
    [' 0 ', '2026-06-01T12:00:00.000Z'],
    ['Mon, 01 Jun 2026 12:05:00 GMT', '2026-06-01T12:05:00.000Z'],
    ['Monday, 01-Jun-26 12:05:00 GMT', '2026-06-01T12:05:00.000Z'],
    ['Mon Jun  1 12:05:00 2026', '2026-06-01T12:05:00.000Z'],
    ['Mon, 01 Jun 2026 11:00:00 GMT', '2026-06-01T12:00:00.000Z'],
  ])('reads %j as %s', (value, expected) => {
    expect(retryAfterDate(value, now)?.toISOString()).toBe(expected);
  });

  it.each([[undefined], [''], ['soon'], ['-5'], ['1.5'], ['Mon, 99 Foo 2026 GMT']])(
    'leaves %j to the backoff',
    (value) => {
      expect(retryAfterDate(value, now)).toBeNull();
    },
  );
});

describe('backoffMs', () => {
  const options = (random: number) => ({ baseMs: 1000, maxMs: 10_000, random: () => random });
  it.each([
    [0, 0, 500],
    [0, 1, 1000],
    [1, 0.5, 1500],
    [3, 1, 8000],
    [4, 1, 10_000],
    [40, 0, 5000],
  ])('waits after failure %i (random %f) %i ms', (failures, random, expected) => {
    expect(backoffMs(failures, options(random))).toBe(expected);
  });
});
