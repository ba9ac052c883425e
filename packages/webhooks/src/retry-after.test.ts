import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after';

const now = new Date('2026-11-21T07:04:00.000Z');

describe('a Retry-After header', () => {
  it.each<[string | undefined, number | undefined]>([
    ['0', 0],
    ['120', 120],
    [' 30 ', 30],
    ['86400', 86400],
    ['Sat, 21 Nov 2026 07:05:00 GMT', 60],
    ['Sat, 21 Nov 2026 07:04:00 GMT', 0],
    ['Sat, 21 Nov 2026 06:00:00 GMT', 0], // in the past: retry now
    ['Saturday, 21-Nov-26 07:14:00 GMT', 600],
    ['Sat Nov 21 08:04:00 2026', 3600], // asctime: GMT, whatever the local zone
    ['Sat Nov  1 07:04:00 2026', 0],
    [undefined, undefined],
    ['', undefined],
    ['-5', undefined],
    ['1.5', undefined],
    ['30s', undefined],
    ['soon', undefined],
    ['2026-11-21T07:05:00Z', undefined], // ISO 8601 is not an HTTP date
    ['Sat, 21 Nov 2026 07:05:00 PST', undefined],
    ['Sat, 32 Nov 2026 07:05:00 GMT', undefined],
  ])('%j waits %j seconds', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });

  it('rounds a date up to whole seconds, never retrying before it', () => {
    expect(
      parseRetryAfter('Sat, 21 Nov 2026 07:05:00 GMT', new Date('2026-11-21T07:04:00.400Z')),
    ).toBe(60);
  });
});
