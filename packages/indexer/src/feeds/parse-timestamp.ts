import { decimalOf } from './parse-number';
import { failed, shown, textOf, type Parsed } from './parsed';
import { ZONE_ABBREVIATIONS, zonedToInstant } from './time-zones';

/** Epoch values at or above this are milliseconds (1973 in milliseconds, year 5138 in seconds). */
const MILLISECONDS_FROM = 100_000_000_000;

/** A compiled timestamp reader: the instant a value names, or why it names none. */
export type TimestampParser = (value: unknown) => Parsed<Date>;

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** Minutes east of UTC, when the text names its zone. */
  offset: number | null;
  /** AM/PM, when the text says which (hours are then 1-12). */
  pm: boolean | null;
}

/** Pattern letters: Java's where they overlap. Text in single quotes is literal. */
const TOKENS: readonly { token: string; source: string; set: (fields: Fields, text: string) => boolean }[] = [
  { token: 'yyyy', source: '(\\d{4})', set: (f, t) => ((f.year = Number(t)), true) },
  { token: 'MM', source: '(\\d{2})', set: (f, t) => ((f.month = Number(t)), true) },
  { token: 'M', source: '(\\d{1,2})', set: (f, t) => ((f.month = Number(t)), true) },
  { token: 'dd', source: '(\\d{2})', set: (f, t) => ((f.day = Number(t)), true) },
  { token: 'd', source: '(\\d{1,2})', set: (f, t) => ((f.day = Number(t)), true) },
  { token: 'HH', source: '(\\d{2})', set: (f, t) => ((f.hour = Number(t)), true) },
  { token: 'H', source: '(\\d{1,2})', set: (f, t) => ((f.hour = Number(t)), true) },
  { token: 'hh', source: '(\\d{2})', set: (f, t) => ((f.hour = Number(t) % 12), Number(t) >= 1 && Number(t) <= 12) },
  { token: 'h', source: '(\\d{1,2})', set: (f, t) => ((f.hour = Number(t) % 12), Number(t) >= 1 && Number(t) <= 12) },
  { token: 'mm', source: '(\\d{2})', set: (f, t) => ((f.minute = Number(t)), true) },
  { token: 'ss', source: '(\\d{2})', set: (f, t) => ((f.second = Number(t)), true) },
  { token: 'SSS', source: '(\\d{3})', set: (f, t) => ((f.millisecond = Number(t)), true) },
  { token: 'a', source: '([AaPp][Mm])', set: (f, t) => ((f.pm = t.toUpperCase() === 'PM'), true) },
  {
    token: 'zzz',
    source: '([A-Za-z]{1,4})',
    set: (f, t) => {
      const offset = ZONE_ABBREVIATIONS[t.toUpperCase()];
      f.offset = offset ?? null;
      return offset !== undefined;
    },
  },
  {
    token: 'XXX',
    source: '(Z|[+-]\\d{2}:?\\d{2})',
    set: (f, t) => {
      if (t === 'Z') return (f.offset = 0), true;
      const minutes = Number(t.slice(1, 3)) * 60 + Number(t.slice(-2));
      f.offset = t.startsWith('-') ? -minutes : minutes;
      return true;
    },
  },
];

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/g;

interface CompiledPattern {
  regex: RegExp;
  setters: ((fields: Fields, text: string) => boolean)[];
}

/**
 * Compiles a date pattern such as `yyyy/MM/dd HH:mm zzz` or `yyyy-dd-MMzzzHH:mm:ssSSS`.
 * Letters: yyyy, MM/M, dd/d, HH/H (0-23), hh/h with a (AM/PM), mm, ss, SSS, zzz (a zone
 * abbreviation: PST/PDT/MST/MDT/CST/CDT/EST/EDT/UTC/GMT) and XXX (`Z` or `+02:00`).
 * @throws {Error} naming the first letters that are not a token.
 */
export function compilePattern(pattern: string): CompiledPattern {
  let source = '';
  const setters: CompiledPattern['setters'] = [];
  const used = new Set<string>();
  for (let i = 0; i < pattern.length; ) {
    const char = pattern[i]!;
    if (char === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed quote in pattern ${JSON.stringify(pattern)}`);
      source += pattern.slice(i + 1, end).replace(REGEX_SPECIAL, '\\$&');
      i = end + 1;
      continue;
    }
    if (/[A-Za-z]/.test(char)) {
      const token = TOKENS.find((candidate) => pattern.startsWith(candidate.token, i));
      if (token === undefined) throw new Error(`unknown letters ${JSON.stringify(/^[A-Za-z]+/.exec(pattern.slice(i))![0])} in pattern ${JSON.stringify(pattern)}`);
      source += token.source;
      setters.push(token.set);
      used.add(token.token[0]!);
      i += token.token.length;
      continue;
    }
    source += char === ' ' ? '\\s+' : char.replace(REGEX_SPECIAL, '\\$&');
    i += 1;
  }
  for (const [letter, what] of [['y', 'year'], ['M', 'month'], ['d', 'day']] as const) {
    if (!used.has(letter)) throw new Error(`pattern ${JSON.stringify(pattern)} has no ${what}`);
  }
  if (used.has('h') !== used.has('a')) throw new Error(`pattern ${JSON.stringify(pattern)}: h/hh (1-12) and a (AM/PM) go together`);
  return { regex: new RegExp(`^${source}$`), setters };
}

const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The instant of parsed fields, or null when they are not a real date and time. */
function instantOf(fields: Fields, timeZone: string): number | null {
  const { year, month, day, minute, second, millisecond, offset } = fields;
  const hour = fields.pm === true ? fields.hour + 12 : fields.hour;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
  return offset === null ? zonedToInstant(wall, timeZone) : wall - offset * 60_000;
}

const blankFields = (): Fields => ({ year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0, offset: null, pm: null });

/** ISO 8601: a date, optionally a time, optionally a zone (`Z`, `±hh`, `±hh:mm`, `±hhmm`). */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

function isoFields(text: string): Fields | null {
  const m = ISO.exec(text);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const offset = z !== undefined ? 0 : sign === undefined ? null : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om ?? 0));
  return {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h ?? 0),
    minute: Number(mi ?? 0),
    second: Number(s ?? 0),
    millisecond: frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0')),
    offset,
    pm: null,
  };
}

function epoch(value: unknown, unit: 'seconds' | 'milliseconds' | 'auto'): number | null | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' ? decimalOf(value.trim()) : null;
  if (number === null || !Number.isFinite(number)) return undefined;
  if (number === 0) return null; // feeds write 0 for "no time"
  const millis = unit === 'milliseconds' || (unit === 'auto' && Math.abs(number) >= MILLISECONDS_FROM);
  return Math.round(millis ? number : number * 1000);
}

/**
 * A timestamp reader for one field. `format`: `auto` (epoch seconds or milliseconds, told
 * apart by size, or ISO 8601), `iso`, `epoch-seconds`, `epoch-milliseconds`, or a pattern
 * (see compilePattern). A time without a zone, and a date without a time (read as midnight),
 * are in `timeZone`, the marketplace's own zone (IANA name).
 * @throws {Error} when the format is not a valid pattern.
 */
export function timestampParser(format: string, timeZone: string): TimestampParser {
  const pattern = format === 'auto' || format === 'iso' || format.startsWith('epoch-') ? null : compilePattern(format);
  const bad = (value: unknown) => failed(`not a date and time ${shown(value)}${pattern === null ? '' : ` (expected ${format})`}`);
  return (value) => {
    if (value === undefined || value === null) return { ok: true, value: null };
    if (typeof value === 'string' && value.trim() === '') return { ok: true, value: null };
    if (format === 'epoch-seconds' || format === 'epoch-milliseconds' || (format === 'auto' && (typeof value === 'number' || /^\s*\d+(\.\d+)?\s*$/.test(textOf(value))))) {
      const millis = epoch(value, format === 'epoch-seconds' ? 'seconds' : format === 'epoch-milliseconds' ? 'milliseconds' : 'auto');
      if (millis === undefined) return bad(value);
      return { ok: true, value: millis === null ? null : new Date(millis) };
    }
    if (typeof value !== 'string') return bad(value);
    const text = value.trim();
    let fields: Fields | null;
    if (pattern === null) {
      fields = isoFields(text);
    } else {
      const m = pattern.regex.exec(text);
      fields = m === null ? null : blankFields();
      if (m !== null && fields !== null) {
        for (let i = 0; i < pattern.setters.length; i++) {
          if (!pattern.setters[i]!(fields, m[i + 1]!)) return failed(`not a date and time ${shown(value)}: unknown zone or hour`);
        }
      }
    }
    const instant = fields === null ? null : instantOf(fields, timeZone);
    return instant === null || Number.isNaN(instant) ? bad(value) : { ok: true, value: new Date(instant) };
  };
}
