import type { SearchQuery, Total } from '@domain-index/contract';
import type { Ordering } from './ordering';

/**
 * How a page is found:
 * - `walk`: one statement that follows the sort order's index and keeps the matching rows
 *   until the page is full; cheap when matches are common, since the page fills early.
 * - `ids-first`: the same walk for the ids only, then those rows. For the live set in the
 *   default order the walk then reads a covering index alone (listings_live_by_score_idx)
 *   instead of one table page per candidate row; the second reference to the table costs
 *   about 1 ms of planning, so other orders keep the single statement.
 * - `collect`: gather every match through the substring indexes, then sort them; cheap when
 *   matches are few, where a walk would read most of the index before the page fills.
 */
export type PageStrategy = 'walk' | 'ids-first' | 'collect';

/**
 * Matches up to which collecting beats walking. Measured at 5M listings: a walk reads about
 * 0.25 us per index entry and needs 51 x 3M / matches entries on the live set; collecting costs
 * about 3 us per match. The two meet near 3,500 matches.
 */
export const COLLECT_AT_MOST = 3_000;

/**
 * The planner would choose between walking and collecting by itself from its estimate, but a
 * substring term's selectivity is a guess (`zyg`: 2,385 estimated, 371 real), and walking an
 * index that answers without the table looks cheap enough that a wrong guess costs 100 ms. The
 * exact count, which the page reports anyway, settles it: a search with terms is counted before
 * its page is found; without terms the count is not needed here.
 */
export function pageStrategy(query: Pick<SearchQuery, 'search' | 'status'>, ordering: Ordering, total?: Total): PageStrategy {
  if (hasSearchTerms(query) && total?.accuracy === 'exact' && total.value <= COLLECT_AT_MOST) return 'collect';
  const liveSetByScore = query.status === undefined && ordering.sort === 'index_score' && ordering.order === 'desc';
  return liveSetByScore ? 'ids-first' : 'walk';
}

/** Whether a search has substring terms: then its count decides the strategy, so it is counted first. */
export function hasSearchTerms(query: Pick<SearchQuery, 'search'>): boolean {
  return (query.search?.length ?? 0) > 0;
}
