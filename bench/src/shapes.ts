import { SORT_FIELDS } from '@domain-index/contract';

/** One kind of request customers send. `query` is sent as-is; `path` replaces the search path. */
export interface Shape {
  name: string;
  /** Query parameters of GET /api/v1/domains. */
  query?: Record<string, string>;
  /** Another path under /api/v1 (lookup, stats). */
  path?: string;
  kind: 'search' | 'deep-paging' | 'lookup' | 'stats';
}

/**
 * The fixed workload, documented in BENCHMARKS.md. Terms were chosen from the seeded data:
 * a rare 3+ character term, a common one, a 2-character one and three terms together.
 */
export const SEARCH_SHAPES: Shape[] = [
  { name: 'default list', query: {}, kind: 'search' },
  ...SORT_FIELDS.flatMap((sort) =>
    (['asc', 'desc'] as const).map((order) => ({
      name: `status=all sort=${sort} ${order}`,
      query: { status: 'all', sort, order },
      kind: 'search' as const,
    })),
  ),
  { name: 'rare term (zyg)', query: { search: 'zyg' }, kind: 'search' },
  { name: 'common term (shop)', query: { search: 'shop' }, kind: 'search' },
  { name: '2-character term (qz)', query: { search: 'qz' }, kind: 'search' },
  { name: 'three terms (an re st)', query: { search: 'an re st' }, kind: 'search' },
  { name: 'multi-label tld (co.uk)', query: { tld: 'co.uk' }, kind: 'search' },
  { name: 'source + price range', query: { source: 'namemarket', min_price: '100', max_price: '500' }, kind: 'search' },
  { name: 'ending_within=6', query: { ending_within: '6' }, kind: 'search' },
  { name: 'min_dr=30 (sparse metric)', query: { min_dr: '30' }, kind: 'search' },
  { name: 'no_hyphens no_numbers max_length=6', query: { no_hyphens: 'true', no_numbers: 'true', max_length: '6' }, kind: 'search' },
];

/** Pages walked along one cursor chain for the deep-paging shape. */
export const DEEP_PAGE = 200;

/** The change feed's filters (GET /api/v1/events), each read from positions spread over its 14 days. */
export const FEED_FILTERS = {
  'tld=ai&max_price=500&no_hyphens=true': 'cheap .ai names without hyphens',
  'type=listing.added&min_score=60': 'new listings scoring 60+',
  'search=cloud&type=listing.updated': 'price moves of names with "cloud"',
  'source=bidhaus&status=auction&min_dr=30': 'auctions of one marketplace with DR 30+',
  'search=zzq': 'a term no name has (every page examines its 5,000)',
} as const;
