import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { FeedItem } from './feed-item';
import { CSV_LAYOUT, readDelimited } from './feeds/read-delimited';

export { FeedSyntaxError, type FeedItem } from './feed-item';

/** The listing states a feed row may carry. */
export const AUCTION_STATUSES = ['auction', 'dropping', 'available'] as const;

/** One of {@link AUCTION_STATUSES}. */
export type AuctionStatus = (typeof AUCTION_STATUSES)[number];

/** A feed record that passed validation; fields the feed left out or left empty are `null`. */
export interface FeedRow {
  /** As given by the feed (trimmed only); normalisation to ASCII/punycode happens later. */
  domainName: string;
  status: AuctionStatus;
  /** Lowercased marketplace id, when the feed names one. */
  source: string | null;
  currentBid: number | null;
  startPrice: number | null;
  buyNowPrice: number | null;
  bidCount: number | null;
  auctionEndTime: Date | null;
  /** Lowercase snake_case, at most 32 characters. */
  auctionType: string | null;
  /** Parsed and re-serialised http(s) URL. */
  marketplaceUrl: string | null;
  extensionsTaken: number | null;
  /** Years. */
  domainAge: number | null;
  valuation: number | null;
  spamRisk: number | null;
  seoaDr: number | null;
  seoaBacklinks: number | null;
  seobTf: number | null;
  seobCf: number | null;
  seobBacklinks: number | null;
  seocAuthority: number | null;
  seocBacklinks: number | null;
  keywordSearchVolume: number | null;
  openRank: number | null;
  rankingaRanking: number | null;
  rankingbRanking: number | null;
  lastSoldPrice: number | null;
  lastSoldYear: number | null;
}

/** Outcome of {@link parseFeedRecord}: the row, or the first problem found. */
export type FeedRecordResult = { ok: true; row: FeedRow } | { ok: false; reason: string };

/** Largest accepted money amount in dollars; anything above is a feed error, not a price. */
const MAX_MONEY = 1_000_000_000;
/** Counts that fit a 32-bit integer column. */
const MAX_INT32 = 2_147_483_647;
/** Backlink counts of big sites exceed 2^31. */
const MAX_BIG_COUNT = Number.MAX_SAFE_INTEGER;
const FIRST_SALE_YEAR = 1985;
const MAX_DOMAIN_NAME = 253;
const MAX_SOURCE = 32;
const MAX_AUCTION_TYPE = 32;
const MAX_URL = 2048;
/** End times outside [2000, 2100) are unit mistakes (milliseconds as seconds and the like). */
const MIN_END_MS = Date.UTC(2000, 0, 1);
const MAX_END_MS = Date.UTC(2100, 0, 1);
const MAX_SHOWN_VALUE = 40;

/** Plain decimal text, the same rule as the API's query numbers: no exponent, hex, Infinity, NaN, `$`. */
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
/** ISO 8601 extended date-time with a mandatory zone: `Z`, `±hh`, `±hh:mm` or `±hhmm`. */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

class FieldError extends Error {}

const fail = (reason: string): never => {
  throw new FieldError(reason);
};

type Lookup = (name: string) => unknown;

interface InverseMapping {
  /** our name -> the feed names mapped onto it, in mapping order */
  byTarget: Map<string, string[]>;
  /** feed names that are renamed: their own name no longer means our field of that name */
  renamed: Set<string>;
}

const inverseCache = new WeakMap<Readonly<Record<string, string>>, InverseMapping>();

function inverseOf(mapping: Readonly<Record<string, string>>): InverseMapping {
  let inverse = inverseCache.get(mapping);
  if (inverse === undefined) {
    inverse = { byTarget: new Map(), renamed: new Set() };
    for (const [feedName, ourName] of Object.entries(mapping)) {
      if (feedName === ourName) continue;
      inverse.renamed.add(feedName);
      const list = inverse.byTarget.get(ourName);
      if (list === undefined) inverse.byTarget.set(ourName, [feedName]);
      else list.push(feedName);
    }
    inverseCache.set(mapping, inverse);
  }
  return inverse;
}

const isBlank = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

function lookupIn(
  record: Record<string, unknown>,
  mapping?: Readonly<Record<string, string>>,
): Lookup {
  const own = (name: string): unknown => (Object.hasOwn(record, name) ? record[name] : undefined);
  if (mapping === undefined) return own;
  const { byTarget, renamed } = inverseOf(mapping);
  return (name) => {
    const feedNames = byTarget.get(name);
    if (feedNames !== undefined) {
      for (const feedName of feedNames) {
        const value = own(feedName);
        if (!isBlank(value)) return value;
      }
    }
    return renamed.has(name) ? undefined : own(name);
  };
}

/** Shortened and quoted for an error reason, so a huge or multi-line value cannot flood a report. */
function shown(value: string): string {
  return JSON.stringify(
    value.length > MAX_SHOWN_VALUE ? `${value.slice(0, MAX_SHOWN_VALUE)}...` : value,
  );
}

/** Trimmed non-empty string, `null` when absent or empty. */
function text(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return fail(`${field} is not a string`);
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function numeric(value: unknown, field: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number')
    return Number.isFinite(value) ? value + 0 : fail(`${field} is not a number`);
  if (typeof value !== 'string') return fail(`${field} is not a number`);
  const trimmed = value.trim();
  if (trimmed === '') return null;
  return DECIMAL.test(trimmed) ? Number(trimmed) + 0 : fail(`${field} is not a number`);
}

/** Rounds half away from zero on the decimal digits as written, so 1.005 becomes 1.01. */
function roundCents(value: number): number {
  const written = String(value);
  if (written.includes('e')) return Math.round(value * 100) / 100;
  // at most two decimals written: already whole cents (the common case, no rounding to do)
  const dot = written.indexOf('.');
  if (dot === -1 || written.length - dot <= 3) return value;
  return Number(`${Math.round(Number(`${written}e2`))}e-2`);
}

function money(value: unknown, field: string): number | null {
  const n = numeric(value, field);
  if (n === null) return null;
  if (n < 0) return fail(`negative value in ${field}`);
  if (n > MAX_MONEY) return fail(`${field} is too large`);
  return roundCents(n);
}

function integer(value: unknown, field: string, min: number, max: number): number | null {
  const n = numeric(value, field);
  if (n === null) return null;
  if (n < 0) return fail(`negative value in ${field}`);
  if (!Number.isInteger(n)) return fail(`${field} is not an integer`);
  if (n < min || n > max) return fail(`${field} is out of range (${min}-${max})`);
  return n;
}

function count(value: unknown, field: string, max = MAX_INT32): number | null {
  const n = numeric(value, field);
  if (n === null) return null;
  if (n < 0) return fail(`negative value in ${field}`);
  if (!Number.isInteger(n)) return fail(`${field} is not an integer`);
  if (n > max) return fail(`${field} is too large`);
  return n;
}

/** Ranks start at 1; feeds write 0 for "not ranked", which must not sort as the best rank. */
function ranking(value: unknown, field: string): number | null {
  const n = count(value, field);
  return n === 0 ? null : n;
}

function percent(value: unknown, field: string): number | null {
  const n = numeric(value, field);
  if (n === null) return null;
  if (n < 0) return fail(`negative value in ${field}`);
  if (n > 100) return fail(`${field} is out of range (0-100)`);
  return n;
}

function domainName(value: unknown): string {
  const name = text(value, 'domain_name');
  if (name === null) return fail('missing domain_name');
  if (name.replace(/\.$/, '').length > MAX_DOMAIN_NAME) return fail('domain_name is too long');
  return name;
}

function status(value: unknown): AuctionStatus {
  if (isBlank(value)) return fail('missing status');
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    return fail('status is not a string');
  }
  const wanted = String(value).trim().toLowerCase();
  const found = AUCTION_STATUSES.find((s) => s === wanted);
  return found ?? fail(`unknown status ${shown(String(value))}`);
}

function source(value: unknown): string | null {
  const id = text(value, 'source');
  if (id === null) return null;
  if (id.length > MAX_SOURCE) return fail('source is too long');
  return id.toLowerCase();
}

const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : month === 4 || month === 6 || month === 9 || month === 11
      ? 30
      : 31;

/** Parses an ISO 8601 date-time that names its zone; `null` when it is not one or not a real date. */
function isoInstant(value: string): number | null {
  const m = ISO_DATE_TIME.exec(value);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, frac, , sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  const offsetHours = oh === undefined ? 0 : Number(oh);
  const offsetMinutes = om === undefined ? 0 : Number(om);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  // second 60 is a leap second; Date.UTC carries it into the next minute
  if (hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59)
    return null;
  const millis = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  const offset = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offset;
}

function endTime(value: unknown): Date | null {
  const field = 'auction_end_time';
  if (value === undefined || value === null) return null;
  let ms: number | null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return fail(`invalid date in ${field}`);
    if (value === 0) return null; // feeds write 0 for "no end time"
    ms = Math.round(value * 1000);
  } else if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed === '') return null;
    if (DECIMAL.test(trimmed)) {
      const seconds = Number(trimmed);
      if (seconds === 0) return null;
      ms = Math.round(seconds * 1000);
    } else {
      ms = isoInstant(trimmed);
    }
  } else {
    return fail(`invalid date in ${field}`);
  }
  if (ms === null || ms < MIN_END_MS || ms >= MAX_END_MS) return fail(`invalid date in ${field}`);
  return new Date(ms);
}

/**
 * Auction types already converted: a feed uses a handful of them on every row, and the
 * conversion (Unicode normalisation and five regular expressions) is a pure function of the text.
 */
const snakeCaseTypes = new Map<string, string | null>();
/**
 * Bounds the memo, which lives as long as its thread (a staging worker, or the process): past
 * this many distinct types, further ones are converted every time.
 */
const MAX_REMEMBERED_TYPES = 1_000;

function auctionType(value: unknown): string | null {
  const raw = text(value, 'auction_type');
  if (raw === null) return null;
  const remembered = snakeCaseTypes.get(raw);
  if (remembered !== undefined) return remembered;
  const converted = snakeCaseType(raw);
  // kept as a copy of its own: the text may be a slice of a whole chunk of the feed
  if (snakeCaseTypes.size < MAX_REMEMBERED_TYPES) snakeCaseTypes.set(raw.split('').join(''), converted);
  return converted;
}

/** An auction type in lowercase snake_case, null for a placeholder; fails when too long. */
function snakeCaseType(raw: string): string | null {
  if (raw.length > 4 * MAX_AUCTION_TYPE) return fail('auction_type is too long');
  const snake = raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (snake === '') return null; // placeholders such as "-" or "?"
  if (snake.length > MAX_AUCTION_TYPE) return fail('auction_type is too long');
  return snake;
}

function marketplaceUrl(value: unknown): string | null {
  const field = 'marketplace_url';
  const raw = text(value, field);
  if (raw === null) return null;
  if (raw.length > MAX_URL) return fail(`${field} is too long`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(`${field} is not an http(s) URL`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    return fail(`${field} is not an http(s) URL`);
  }
  // the API returns this link to every customer
  if (url.username !== '' || url.password !== '')
    return fail(`${field} must not contain credentials`);
  if (url.href.length > MAX_URL) return fail(`${field} is too long`);
  return url.href;
}

/**
 * Validates one raw feed record (a parsed JSONL object or a CSV row) into a typed row.
 *
 * Field names are the feed format's snake_case names; `mapping` renames a feed's own names to
 * ours (`{ price: 'current_bid' }`). Absent, `null` and empty-string values are `null`; unknown
 * fields are ignored. Numbers may be JSON numbers or plain decimal strings (`"12.50"`).
 * Ranges: money >= 0 (rounded to cents, at most $1bn); counts are non-negative integers
 * (backlinks up to 2^53, the rest up to 2^31-1) and a ranking of 0 means unranked (`null`);
 * `spam_risk`, `seoa_dr`, `seob_tf`, `seob_cf`, `seoc_authority` and `open_rank` are 0-100;
 * `domain_age` is 0-200 years; `last_sold_year` is 1985 to next year; `auction_end_time` is an
 * ISO 8601 date-time with a zone or unix seconds (0 means none) within 2000-2099.
 * Only the first problem is reported, in feed-format field order.
 */
export function parseFeedRecord(
  record: Record<string, unknown>,
  mapping?: Readonly<Record<string, string>>,
): FeedRecordResult {
  const get = lookupIn(record, mapping);
  try {
    const row: FeedRow = {
      domainName: domainName(get('domain_name')),
      status: status(get('status')),
      source: source(get('source')),
      currentBid: money(get('current_bid'), 'current_bid'),
      startPrice: money(get('start_price'), 'start_price'),
      buyNowPrice: money(get('buy_now_price'), 'buy_now_price'),
      bidCount: count(get('bid_count'), 'bid_count'),
      auctionEndTime: endTime(get('auction_end_time')),
      auctionType: auctionType(get('auction_type')),
      marketplaceUrl: marketplaceUrl(get('marketplace_url')),
      extensionsTaken: count(get('extensions_taken'), 'extensions_taken'),
      domainAge: integer(get('domain_age'), 'domain_age', 0, 200),
      valuation: money(get('valuation'), 'valuation'),
      spamRisk: percent(get('spam_risk'), 'spam_risk'),
      seoaDr: percent(get('seoa_dr'), 'seoa_dr'),
      seoaBacklinks: count(get('seoa_backlinks'), 'seoa_backlinks', MAX_BIG_COUNT),
      seobTf: percent(get('seob_tf'), 'seob_tf'),
      seobCf: percent(get('seob_cf'), 'seob_cf'),
      seobBacklinks: count(get('seob_backlinks'), 'seob_backlinks', MAX_BIG_COUNT),
      seocAuthority: percent(get('seoc_authority'), 'seoc_authority'),
      seocBacklinks: count(get('seoc_backlinks'), 'seoc_backlinks', MAX_BIG_COUNT),
      keywordSearchVolume: count(get('keyword_search_volume'), 'keyword_search_volume'),
      openRank: percent(get('open_rank'), 'open_rank'),
      rankingaRanking: ranking(get('rankinga_ranking'), 'rankinga_ranking'),
      rankingbRanking: ranking(get('rankingb_ranking'), 'rankingb_ranking'),
      lastSoldPrice: money(get('last_sold_price'), 'last_sold_price'),
      lastSoldYear: integer(
        get('last_sold_year'),
        'last_sold_year',
        FIRST_SALE_YEAR,
        new Date().getUTCFullYear() + 1,
      ),
    };
    return { ok: true, row };
  } catch (error) {
    if (error instanceof FieldError) return { ok: false, reason: error.message };
    throw error;
  }
}

function isNodeStream(input: unknown): input is NodeJS.ReadableStream {
  return (
    typeof input === 'object' &&
    input !== null &&
    typeof (input as { pipe?: unknown }).pipe === 'function' &&
    typeof (input as { on?: unknown }).on === 'function'
  );
}

/** The first line of a feed without its byte order mark. */
export function withoutBom(firstLine: string): string {
  return firstLine.startsWith('\uFEFF') ? firstLine.slice(1) : firstLine;
}

/**
 * One JSONL line as a feed item: its record, or why it is not one. Null for a blank line,
 * which is skipped. Shared by {@link readFeed} and the import's staging workers, which split
 * lines themselves.
 */
export function jsonlItem(content: string, line: number): FeedItem | null {
  if (content.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return { line, error: 'invalid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { line, error: 'not a JSON object' };
  return { line, record: value as Record<string, unknown> };
}

async function* readJsonl(
  input: NodeJS.ReadableStream | AsyncIterable<string | Buffer>,
): AsyncGenerator<FeedItem> {
  const stream = isNodeStream(input) ? input : Readable.from(input);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const raw of lines) {
      line += 1;
      const item = jsonlItem(line === 1 ? withoutBom(raw) : raw, line);
      if (item !== null) yield item;
    }
  } finally {
    lines.close();
    // like pipeline() on the CSV side: a reader that stops early must not leave the file open
    if (stream instanceof Readable) stream.destroy();
  }
}

/**
 * Streams a feed file record by record without holding it in memory.
 *
 * JSONL: one object per line; blank lines are skipped; a line that is not JSON or not an object
 * becomes an error item. CSV: the first row names the columns; every value is a string (empty
 * means absent); a row with the wrong number of fields becomes an error item. Line numbers are
 * 1-based physical lines (for a CSV record spanning several lines, its first line). The input
 * is destroyed when the iteration ends, also when the consumer stops early.
 *
 * @throws {FeedSyntaxError} when a CSV file is broken beyond one row (see the class).
 * Errors of the input stream are rethrown as they are.
 */
export async function* readFeed(
  input: NodeJS.ReadableStream | AsyncIterable<string | Buffer>,
  format: 'jsonl' | 'csv',
): AsyncGenerator<FeedItem> {
  if (format === 'jsonl') yield* readJsonl(input);
  else yield* readDelimited(input, CSV_LAYOUT);
}
