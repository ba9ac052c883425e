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
