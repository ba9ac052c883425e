import type { EventQuery, EventType } from '@domain-index/contract';
import { listingEvents } from '@domain-index/db';
import { boundApplies } from '@domain-index/listings/bounds';
import { BOUND_ENTRIES } from '@domain-index/listings/filters';
import { float4Threshold } from '@domain-index/listings/float4-threshold';

/** What the filters read of an event, as the outbox loads it (numbers as the columns hold them). */
export interface EventFilterRow {
  id: number;
  type: string;
  source: string;
  /** Epoch ms. */
  occurredAt: number;
  /** null for source.loaded. */
  domainName: string | null;
  /** The watchlist of a name event; null for the index's events. */
  watchlistId: string | null;
  tld: string | null;
  status: string | null;
  hasHyphens: boolean | null;
  hasNumbers: boolean | null;
  /** Epoch ms, or null. */
  auctionEndTime: number | null;
  currentBid: number | null;
  length: number | null;
  indexScore: number | null;
  /** float4 columns: the float4 value itself (Math.fround of the shown decimal). */
  seoaDr: number | null;
  seobTf: number | null;
  maxBacklinks: number | null;
  domainAge: number | null;
  keywordSearchVolume: number | null;
  wordCount: number | null;
  extensionsTaken: number | null;
}

type NumericColumn = Extract<(typeof BOUND_ENTRIES)[number][1][0], keyof EventFilterRow>;

/**
 * An alert's filter as a predicate over events loaded once for every alert: the outbox matches a
 * window of the feed against a thousand alerts in one pass instead of one statement per alert.
 * It is the SQL of eventConditions (@domain-index/events/feed-page, over @domain-index/listings/filters) rule for rule: terms
 * as substrings (a 2-character term's bigram index answers the same), a lower bound of 0 not
 * applied, any other bound excluding unknown values, whole-number columns bounded by the
 * rounded bound, float4 columns by the float4 threshold, ending_within counted from the event's
 * time, no status meaning every status (ending_within alone meaning auctions), and
 * `source.loaded` only when the types name it. A property test holds the two to the same answers.
 */
export function eventMatcher(query: EventQuery): (event: EventFilterRow) => boolean {
  const types = query.type !== undefined && query.type.length > 0 ? new Set<string>(query.type) : undefined;
  const loadedWanted = types?.has('source.loaded' satisfies EventType) ?? false;
  const terms = query.search ?? [];
  const status = query.status ?? (query.ending_within !== undefined ? 'auction' : 'all');
  const bounds: { column: NumericColumn; test: (value: number) => boolean }[] = [];
  for (const [param, [column, side]] of BOUND_ENTRIES) {
    const value = query[param];
    if (!boundApplies(side, value)) continue;
    const kind = listingEvents[column].columnType;
    let limit = value;
    if (kind === 'PgSmallInt' || kind === 'PgInteger' || kind === 'PgBigInt53') limit = side === 'lower' ? Math.ceil(value) : Math.floor(value);
    else if (kind === 'PgReal') limit = float4Threshold(value, side);
    else if (kind !== 'PgNumericNumber') throw new Error(`no bound is defined for the column ${column}`);
    bounds.push({ column, test: side === 'lower' ? (v) => v >= limit : (v) => v <= limit });
  }
  const endingWithinMs = query.ending_within === undefined ? undefined : query.ending_within * 3_600_000;
  const watchlist = query.watchlist ?? null;
  return (event) => {
    // a watchlist's events go to its alerts only, and the index's to the others
    if (event.watchlistId !== watchlist) return false;
    if (types !== undefined && !types.has(event.type)) return false;
    if (query.source !== undefined && event.source !== query.source) return false;
    if (event.domainName === null) return loadedWanted;
    const name = event.domainName;
    for (const term of terms) if (!name.includes(term)) return false;
    if (query.tld !== undefined && event.tld !== query.tld) return false;
    if (query.no_hyphens === true && event.hasHyphens !== false) return false;
    if (query.no_numbers === true && event.hasNumbers !== false) return false;
    for (const { column, test } of bounds) {
      const value = event[column];
      if (value === null || !test(value)) return false;
    }
    if (endingWithinMs !== undefined && (event.auctionEndTime === null || event.auctionEndTime > event.occurredAt + endingWithinMs)) return false;
    if (status !== 'all' && event.status !== status) return false;
    return true;
  };
}
