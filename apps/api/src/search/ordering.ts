import { DEFAULT_ORDER, type SearchQuery, type SortField, type SortOrder } from '@domain-index/contract';
import { SORT_KEY_SQL } from '@domain-index/db';

/** The order of a search: the field, the direction, and how the database walks it. */
export interface Ordering {
  sort: SortField;
  order: SortOrder;
  /** SQL of the ascending key, or null for domain_name (its own key). */
  keySql: string | null;
}

/**
 * Default ordering: index_score descending; with status=dropping, shortest names first.
 * `order` omitted: the field's natural direction (decisions.md).
 */
export function resolveOrdering(query: Pick<SearchQuery, 'sort' | 'order' | 'status'>): Ordering {
  const sort: SortField = query.sort ?? (query.status === 'dropping' ? 'length' : 'index_score');
  const order: SortOrder = query.order ?? DEFAULT_ORDER[sort];
  return { sort, order, keySql: sort === 'domain_name' ? null : SORT_KEY_SQL[sort][order] };
}
