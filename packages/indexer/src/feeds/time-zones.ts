/**
 * Zone abbreviations as US marketplaces print them, at their fixed offsets in minutes. An
 * abbreviation is taken as written: `PST` is UTC-8 even on a summer date.
 */
export const ZONE_ABBREVIATIONS: Readonly<Record<string, number>> = {
  UTC: 0,
  GMT: 0,
  Z: 0,
  EST: -5 * 60,
  EDT: -4 * 60,
  CST: -6 * 60,
  CDT: -5 * 60,
  MST: -7 * 60,
  MDT: -6 * 60,
  PST: -8 * 60,
  PDT: -7 * 60,
};

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `timeZone` is an IANA zone name this runtime knows (`America/New_York`, `UTC`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatterOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at an instant, in milliseconds. */
function offsetAt(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day, parts.hour, parts.minute, parts.second);
  return wall - (instant - (((instant % 1000) + 1000) % 1000));
}

const DAY = 86_400_000;

/**
 * The instant of a wall-clock time in an IANA zone (`wallAsUtc` is that time read as if it
 * were UTC). A time repeated when clocks go back is its first occurrence; a time skipped when
 * they go forward is read with the offset before the jump.
 */
export function zonedToInstant(wallAsUtc: number, timeZone: string): number {
  // every profile's default zone: no offset to look up (Intl's formatting costs ~16 us a value)
  if (timeZone === 'UTC') return wallAsUtc;
  const before = offsetAt(wallAsUtc - DAY, timeZone);
  const after = offsetAt(wallAsUtc + DAY, timeZone);
  const candidates = [wallAsUtc - before, wallAsUtc - after].filter((instant) => wallAsUtc - offsetAt(instant, timeZone) === instant);
  return candidates.length === 0 ? wallAsUtc - before : Math.min(...candidates);
}
