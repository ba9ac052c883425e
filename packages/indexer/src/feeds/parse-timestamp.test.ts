import { describe, expect, it } from 'vitest';
import { compilePattern, timestampParser } from './parse-timestamp';

const read = (format: string, value: unknown, zone = 'UTC') => {
  const result = timestampParser(format, zone)(value);
  if (!result.ok) return `refused: ${result.reason}`;
  return result.value === null ? null : result.value.toISOString();
};

describe('timestampParser', () => {
  it.each([
    ['iso', '2026-12-01T17:10:00Z', '2026-12-01T17:10:00.000Z'],
    ['iso', '2026-12-01T17:10:00.123456Z', '2026-12-01T17:10:00.123Z'],
    ['iso', '2026-12-01 17:10:00+02:00', '2026-12-01T15:10:00.000Z'],
    ['iso', '2026-12-01T17:10-0500', '2026-12-01T22:10:00.000Z'],
    ['auto', '2026-12-01T17:10:00Z', '2026-12-01T17:10:00.000Z'],
    ['auto', '1796144400', '2026-12-01T17:00:00.000Z'],
    ['auto', 1796144400, '2026-12-01T17:00:00.000Z'],
    ['auto', '1796144400000', '2026-12-01T17:00:00.000Z'],
    ['epoch-seconds', '1796144400', '2026-12-01T17:00:00.000Z'],
    ['epoch-milliseconds', '1796144400123', '2026-12-01T17:00:00.123Z'],
    ['epoch-milliseconds', 1796144400000, '2026-12-01T17:00:00.000Z'],
  ])('%s reads %j', (format, value, instant) => {
    expect(read(format, value)).toBe(instant);
  });

  it.each([
    ['PST', '2026-10-12T06:17:00.000Z'],
    ['PDT', '2026-10-12T05:17:00.000Z'],
    ['MST', '2026-10-12T05:17:00.000Z'],
    ['MDT', '2026-10-12T04:17:00.000Z'],
    ['CST', '2026-10-12T04:17:00.000Z'],
    ['CDT', '2026-10-12T03:17:00.000Z'],
    ['EST', '2026-10-12T03:17:00.000Z'],
    ['EDT', '2026-10-12T02:17:00.000Z'],
    ['UTC', '2026-10-11T22:17:00.000Z'],
    ['GMT', '2026-10-11T22:17:00.000Z'],
    ['pst', '2026-10-12T06:17:00.000Z'],
  ])('reads the zone abbreviation %s at its fixed offset', (zone, instant) => {
    expect(read('yyyy/MM/dd HH:mm zzz', `2026/10/11 22:17 ${zone}`, 'Asia/Tokyo')).toBe(instant);
  });

  it("reads park.io's year-day-month stamps in US Eastern time", () => {
    expect(read('yyyy-dd-MMzzzHH:mm:ssSSS', '2026-07-10EDT12:41:01000')).toBe('2026-10-07T16:41:01.000Z');
    expect(read('yyyy-dd-MMzzzHH:mm:ssSSS', '2026-03-12EST09:05:30250')).toBe('2026-12-03T14:05:30.250Z');
  });

  it("reads a time without a zone, and a date without a time, in the marketplace's zone", () => {
    expect(read('iso', '2026-07-01T12:00:00', 'America/New_York')).toBe('2026-07-01T16:00:00.000Z');
    expect(read('iso', '2026-12-01T12:00:00', 'America/New_York')).toBe('2026-12-01T17:00:00.000Z');
    expect(read('iso', '2026-12-01', 'America/Los_Angeles')).toBe('2026-12-01T08:00:00.000Z');
    expect(read('iso', '2026-12-01', 'Europe/Berlin')).toBe('2026-11-30T23:00:00.000Z');
    expect(read('MM/dd/yyyy hh:mm a', '12/01/2026 05:30 PM', 'America/Chicago')).toBe('2026-12-01T23:30:00.000Z');
    expect(read('MM/dd/yyyy hh:mm a', '12/01/2026 12:15 AM', 'UTC')).toBe('2026-12-01T00:15:00.000Z');
    expect(read("dd.MM.yyyy 'um' HH:mm", '01.12.2026 um 08:00', 'Europe/Berlin')).toBe('2026-12-01T07:00:00.000Z');
  });

  it('reads a time repeated by a clock change as its first occurrence, a skipped one with the earlier offset', () => {
    expect(read('iso', '2026-11-01T01:30:00', 'America/New_York')).toBe('2026-11-01T05:30:00.000Z');
    expect(read('iso', '2026-10-25T02:30:00', 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z');
    expect(read('iso', '2026-03-08T02:30:00', 'America/New_York')).toBe('2026-03-08T07:30:00.000Z');
  });

  it('reads empty values and 0 as no time', () => {
    expect(read('auto', '')).toBeNull();
    expect(read('auto', null)).toBeNull();
    expect(read('epoch-seconds', '0')).toBeNull();
  });

  it.each([
    ['iso', '2026-02-30T10:00:00Z', 'refused: not a date and time "2026-02-30T10:00:00Z"'],
    ['iso', '2026-12-01T25:00:00Z', 'refused: not a date and time "2026-12-01T25:00:00Z"'],
    ['iso', 'tomorrow', 'refused: not a date and time "tomorrow"'],
    ['yyyy/MM/dd HH:mm zzz', '2026/10/11 22:17 CET', 'refused: not a date and time "2026/10/11 22:17 CET": unknown zone or hour'],
    ['yyyy/MM/dd HH:mm zzz', '2026-10-11 22:17 PST', 'refused: not a date and time "2026-10-11 22:17 PST" (expected yyyy/MM/dd HH:mm zzz)'],
    ['epoch-seconds', 'soon', 'refused: not a date and time "soon"'],
    ['iso', 1796144400, 'refused: not a date and time "1796144400"'],
  ])('%s refuses %j', (format, value, answer) => {
    expect(read(format, value)).toBe(answer);
  });
});

describe('compilePattern', () => {
  it.each([
    ['yyyy/MM/dd Q', 'unknown letters "Q" in pattern "yyyy/MM/dd Q"'],
    ['MM/dd HH:mm', 'pattern "MM/dd HH:mm" has no year'],
    ['yyyy/dd', 'pattern "yyyy/dd" has no month'],
    ['yyyy/MM/dd hh:mm', 'pattern "yyyy/MM/dd hh:mm": h/hh (1-12) and a (AM/PM) go together'],
    ["yyyy/MM/dd 'at", 'unclosed quote in pattern "yyyy/MM/dd \'at"'],
  ])('refuses %j', (pattern, message) => {
    expect(() => compilePattern(pattern)).toThrow(message);
  });
});
