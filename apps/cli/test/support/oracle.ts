import type { Domain, SortField, SortOrder } from '@domain-index/contract';
import { FIXTURE_NOW } from './fixture-index';

/**
 * The rules of api-v1.md and decisions.md restated in plain code over the retrievable rows,
 * to check what the API returns for any combination of filters.
 */
export type Params = Record<string, string>;

const num = (value: string | undefined) => (value === undefined || value === '' ? undefined : Number(value));
const endMs = (d: Domain) => (d.auction_end_time === null ? null : Date.parse(d.auction_end_time));
const maxBacklinks = (d: Domain) => {
  const values = [d.seoa_backlinks, d.seob_backlinks, d.seoc_backlinks].filter((v): v is number => v !== null);
  return values.length === 0 ? null : Math.max(...values);
};
/** Lower bound on a nullable metric: 0 is not applied; otherwise unknown values are excluded. */
const atLeast = (value: number | null, bound: number | undefined) =>
  bound === undefined || bound === 0 || (value !== null && value >= bound);
const atMost = (value: number | null, bound: number | undefined) => bound === undefined || (value !== null && value <= bound);

/**
 * Each numeric bound of the search: the value of a row it bounds, as the customer reads it, and
 * which end. Bounds compare with the number the parameter's text reads as (`40.5` on a whole
 * score keeps 41 and up).
 */
export const NUMERIC_BOUNDS: Record<string, readonly [(d: Domain) => number | null, 'lower' | 'upper']> = {
  min_price: [(d) => d.current_bid, 'lower'],
  max_price: [(d) => d.current_bid, 'upper'],
  min_length: [(d) => d.length, 'lower'],
  max_length: [(d) => d.length, 'upper'],
  min_score: [(d) => d.index_score, 'lower'],
  max_score: [(d) => d.index_score, 'upper'],
  min_dr: [(d) => d.seoa_dr, 'lower'],
  max_dr: [(d) => d.seoa_dr, 'upper'],
  min_tf: [(d) => d.seob_tf, 'lower'],
  max_tf: [(d) => d.seob_tf, 'upper'],
  min_backlinks: [maxBacklinks, 'lower'],
  min_age: [(d) => d.domain_age, 'lower'],
  min_search_volume: [(d) => d.keyword_search_volume, 'lower'],
  min_word_count: [(d) => d.word_count, 'lower'],
  min_extensions: [(d) => d.extensions_taken, 'lower'],
};

/** Whether a retrievable (not ended) row matches the parameters. */
export function matches(d: Domain, p: Params): boolean {
  const status = p.status === '' ? undefined : p.status;
  if (status === undefined && d.status !== 'auction') return false;
  if (status !== undefined && status !== 'all' && d.status !== status) return false;
  for (const term of (p.search ?? '').split(/\s+/).filter(Boolean)) {
    if (!d.domain_name.includes(term.toLowerCase().replace(/[^a-z0-9.-]/g, ''))) return false;
  }
  const tld = p.tld?.toLowerCase();
  if (tld !== undefined && tld !== '' && tld !== 'all' && d.tld !== tld) return false;
  const source = p.source?.toLowerCase();
  if (source !== undefined && source !== '' && source !== 'all' && d.source !== source) return false;
  if (p.no_hyphens === 'true' && d.has_hyphens) return false;
  if (p.no_numbers === 'true' && d.has_numbers) return false;
  for (const [param, [field, side]] of Object.entries(NUMERIC_BOUNDS)) {
    const value = field(d);
    const limit = num(p[param]);
    if (side === 'lower' ? !atLeast(value, limit) : !atMost(value, limit)) return false;
  }
  const within = num(p.ending_within);
  if (within !== undefined) {
    const end = endMs(d);
    if (end === null || end > FIXTURE_NOW.getTime() + within * 3_600_000) return false;
  }
  return true;
}

function sortValue(d: Domain, field: SortField): number | string | null {
  if (field === 'auction_end_time') return endMs(d);
  return d[field];
}

/** decisions.md "Search semantics": `order` omitted is `asc` for these fields, `desc` for the rest. */
const ASCENDING_UNLESS_TOLD: ReadonlySet<SortField> = new Set(['domain_name', 'length', 'auction_end_time']);

/** The direction a sort takes when `order` is omitted, as decisions.md states it. */
export const defaultOrder = (sort: SortField): SortOrder => (ASCENDING_UNLESS_TOLD.has(sort) ? 'asc' : 'desc');

/**
 * The documented order: sort field (nulls last both ways), then domain_name ascending. Without
 * `sort`: index_score descending, or length ascending with status=dropping (api-v1.md).
 */
export function comparator(p: Params): (a: Domain, b: Domain) => number {
  const sort = (p.sort || (p.status === 'dropping' ? 'length' : 'index_score')) as SortField;
  const order = (p.order || defaultOrder(sort)) as SortOrder;
  const sign = order === 'asc' ? 1 : -1;
  return (a, b) => {
    const x = sortValue(a, sort);
    const y = sortValue(b, sort);
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * sign;
    }
    if (sort === 'domain_name') return 0;
    return a.domain_name < b.domain_name ? -1 : a.domain_name > b.domain_name ? 1 : 0;
  };
}

/** Whether `rows` is in the documented order (ties the contract leaves to the internal id are free). */
export function isOrdered(rows: readonly Domain[], p: Params): boolean {
  const cmp = comparator(p);
  return rows.every((row, i) => i === 0 || cmp(rows[i - 1]!, row) <= 0);
}

/** A row's identity: one listing of one name on one marketplace. */
export const identity = (d: Domain) => `${d.source}/${d.domain_name}`;

/** The fields a feed record gives (decisions.md "Feed format"); the indexer computes the rest. */
export const FEED_FIELDS = [
  'status', 'current_bid', 'start_price', 'buy_now_price', 'bid_count', 'auction_end_time', 'auction_type',
  'marketplace_url', 'extensions_taken', 'domain_age', 'valuation', 'spam_risk', 'seoa_dr', 'seoa_backlinks',
  'seob_tf', 'seob_cf', 'seob_backlinks', 'seoc_authority', 'seoc_backlinks', 'keyword_search_volume', 'open_rank',
  'rankinga_ranking', 'rankingb_ranking', 'last_sold_price', 'last_sold_year',
] as const satisfies readonly (keyof Domain)[];

/** A listing as its feed gave it: its identity and the feed's values, absent ones null. */
export interface FedListing {
  identity: string;
  values: Record<(typeof FEED_FIELDS)[number], unknown>;
}

/**
 * The retrievable set stated from the feeds themselves (api-v1.md): every listing whose end time
 * has not passed at `now`, and every listing without one (fixed-price inventory is never excluded).
 */
export function retrievableListings(feeds: ReadonlyMap<string, readonly Record<string, unknown>[]>, now: Date): FedListing[] {
  const listings: FedListing[] = [];
  for (const [source, records] of feeds) {
    for (const record of records) {
      const end = record.auction_end_time;
      if (typeof end === 'string' && Date.parse(end) <= now.getTime()) continue;
      const values = Object.fromEntries(FEED_FIELDS.map((field) => [field, record[field] ?? null])) as FedListing['values'];
      listings.push({ identity: `${source}/${String(record.domain_name).toLowerCase()}`, values });
    }
  }
  return listings;
}

/**
 * The feed fields of a row as the API answered it, in the form the feed gave them (instants as
 * ISO text), to compare with {@link retrievableListings}.
 */
export function fedValues(d: Domain): FedListing['values'] {
  return Object.fromEntries(FEED_FIELDS.map((field) => [field, d[field]])) as FedListing['values'];
}
