import type { SearchQuery, Total } from '@domain-index/contract';

/**
 * How a page is found:
 * - `walk`: follow the sort order's index and keep the rows that match until the page is full;
 *   cheap when matches are common, since the page fills after a short walk.
 * - `collect`: gather every match through the substring indexes, then sort them; cheap when
 *   matches are few, where a walk would read most of the index before the page fills.
 */
export type PageStrategy = 'walk' | 'collect';

/**
 * Matches up to which collecting beats walking. Measured at 5M listings: a walk reads about
 * 0.25 us per index entry and needs 51 x 3M / matches entries on the live set; collecting costs
 * about 3 us per match. The two meet near 3,500 matches.
 */
export const COLLECT_AT_MOST = 3_000;

/**
 * The planner decides this by itself from its estimate, but a substring term's selectivity is
 * a guess (`zyg`: 2,385 estimated, 371 real), and walking an index that answers without the
 * table looks cheap enough that a wrong guess costs 100 ms. The exact count, which the page
 * reports anyway, settles it.
 */
export function pageStrategy(query: Pick<SearchQuery, 'search'>, total: Total): PageStrategy {
  const hasTerms = (query.search?.length ?? 0) > 0;
  return hasTerms && total.accuracy === 'exact' && total.value <= COLLECT_AT_MOST ? 'collect' : 'walk';
}
