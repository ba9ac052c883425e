import { eventQuerySchema, exportQuerySchema, PATH_PREFIX, queryErrorToApiError, searchQuerySchema, type EventQuery, type ExportFormat, type ExportQuery } from '@domain-index/contract';
import { ApiError } from '@domain-index/api-errors/api-error';
import { parseQueryString } from '@domain-index/listings/query-parser';

/** Parameters of the change feed that are positions and page sizes, not filters: an alert has its own. */
const NOT_FILTERS = new Set(['after', 'limit']);
/** Parameters of a search that order or page its rows: dropped from a pasted search URL, as they filter nothing. */
const SEARCH_POSITIONS = ['sort', 'order', 'limit', 'cursor'] as const;
/** The path of the search a pasted URL may be: its filters are translated to the feed's. */
const SEARCH_PATH = `${PATH_PREFIX}/domains`;

/** An alert's filter, as stored: the raw parameters (re-validated on use) and the canonical query string. */
export interface AlertQuery {
  params: Record<string, string>;
  queryString: string;
}

/** What was pasted: the query string, and whether it came from a whole URL of the search. */
function pastedQuery(text: string): { raw: string; fromSearch: boolean } {
  const pasted = text.trim();
  const question = pasted.indexOf('?');
  if (pasted.startsWith('?')) return { raw: pasted.slice(1), fromSearch: false };
  // a whole URL (from a browser's address bar or the docs), or the path and query of one
  if (!/^https?:\/\//i.test(pasted) && !pasted.startsWith('/')) return { raw: pasted, fromSearch: false };
  const beforeQuery = (question < 0 ? pasted : pasted.slice(0, question)).replace(/#.*$/, '');
  let path = '';
  try {
    path = new URL(beforeQuery, 'http://pasted.invalid').pathname;
  } catch {
    // not a URL after all: its query, if any, is still read below, and validated like any other
  }
  const raw = question < 0 ? '' : pasted.slice(question + 1).replace(/#.*$/, '');
  return { raw, fromSearch: path === SEARCH_PATH };
}

/**
 * A search's query as the change feed's filter. The two share every listing filter, but a
 * search without `status` lists running auctions and the feed without one matches every
 * status: so no status becomes `status=auction`, and `status=all` (every status) becomes none.
 * Sorting and paging parameters are positions in a result, not filters, and are dropped.
 */
function searchAsFeedFilter(query: Record<string, string | string[]>): Record<string, string | string[]> {
  const filter = Object.fromEntries(Object.entries(query).filter(([name]) => !(SEARCH_POSITIONS as readonly string[]).includes(name)));
  if (filter.status === undefined || filter.status === '') filter.status = 'auction';
  else if (filter.status === 'all') delete filter.status;
  return filter;
}

/** A query's validation, or the 400 naming `query` with the schema's message. */
function refuseUnless(result: { success: true } | { success: false; error: Parameters<typeof queryErrorToApiError>[0] }): void {
  if (result.success) return;
  throw new ApiError('invalid_parameter', `query: ${queryErrorToApiError(result.error).message}`, 'query');
}

/**
 * Reads an alert's `query`: the query string of `GET /api/v1/events` (a leading `?`, or a whole
 * URL pasted from a browser, is accepted; only its query is kept), validated by the feed's own
 * schema, so an alert accepts exactly the filters the feed does, with the same messages. `after`
 * and `limit` are refused: an alert starts at its creation and sends every match. A pasted URL
 * of the search (`/api/v1/domains?...`) is translated to the feed's filter that matches the same
 * listings (searchAsFeedFilter). Stored normalised: parameters sorted, empty ones dropped.
 *
 * @throws {ApiError} 400 invalid_parameter naming `query`, with the filter's own message.
 */
export function parseAlertQuery(text: string): AlertQuery {
  const { raw, fromSearch } = pastedQuery(text);
  // a search URL the search itself refuses is refused with the search's own message
  if (fromSearch) refuseUnless(searchQuerySchema.safeParse(parseQueryString(raw)));
  const parsed = fromSearch ? searchAsFeedFilter(parseQueryString(raw)) : parseQueryString(raw);
  for (const name of Object.keys(parsed)) {
    if (NOT_FILTERS.has(name)) throw new ApiError('invalid_parameter', `query: ${name} is not a filter: an alert starts at its creation and sends every match`, 'query');
    // a watchlist is named by watchlist_id, whose owner is checked; never through the query
    if (name === 'watchlist') throw new ApiError('invalid_parameter', 'query: watchlist is not a filter here: set the alert\'s watchlist_id instead', 'query');
  }
  refuseUnless(eventQuerySchema.safeParse(parsed));
  const params = Object.fromEntries(
    Object.entries(parsed)
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '')
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return { params, queryString: new URLSearchParams(params).toString() };
}

/**
 * A stored filter as the change feed's query (validated again: the rules may have grown stricter
 * since), with the alert's watchlist when it has one: then it matches that watchlist's name events.
 */
export function alertEventQuery(params: unknown, watchlistId: string | null = null): EventQuery {
  const query = eventQuerySchema.parse(params);
  return watchlistId === null ? query : { ...query, watchlist: watchlistId };
}

/** Parameters of the change feed that choose events, not listings: an export of the listings has no use for them. */
const EVENT_ONLY = ['type', 'after', 'limit', 'watchlist'] as const;

/**
 * The export of the listings an alert's filter matches now: its listing filters, with the feed's
 * status turned back into the search's (searchAsFeedFilter the other way: no status is every
 * status, `status=all`, except with `ending_within`, which goes with running auctions only, the
 * search's default). Which events it names (`type`) does not narrow the listings.
 *
 * @throws {ZodError} when the stored filter is no longer valid; alertEventQuery refuses it too.
 */
export function alertListingsExport(params: Record<string, string>, format: ExportFormat): ExportQuery {
  const filter: Record<string, string> = Object.fromEntries(Object.entries(params).filter(([name]) => !(EVENT_ONLY as readonly string[]).includes(name)));
  if (filter.status === undefined && filter.ending_within === undefined) filter.status = 'all';
  return exportQuerySchema.parse({ ...filter, format });
}
