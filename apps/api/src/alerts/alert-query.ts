import { eventQuerySchema, queryErrorToApiError, type EventQuery } from '@domain-index/contract';
import { ApiError } from '../http/api-error';
import { parseQueryString } from '../http/query-parser';

/** Parameters of the change feed that are positions and page sizes, not filters: an alert has its own. */
const NOT_FILTERS = new Set(['after', 'limit']);

/** An alert's filter, as stored: the raw parameters (re-validated on use) and the canonical query string. */
export interface AlertQuery {
  params: Record<string, string>;
  queryString: string;
}

/**
 * Reads an alert's `query`: the query string of `GET /api/v1/events` (a leading `?`, or a whole
 * URL pasted from a browser, is accepted; only its query is kept), validated by the feed's own
 * schema, so an alert accepts exactly the filters the feed does, with the same messages. `after`
 * and `limit` are refused: an alert starts at its creation and sends every match. Stored
 * normalised: parameters sorted, empty ones dropped.
 *
 * @throws {ApiError} 400 invalid_parameter naming `query`, with the filter's own message.
 */
export function parseAlertQuery(text: string): AlertQuery {
  let raw = text.trim();
  const question = raw.indexOf('?');
  if (/^https?:\/\//i.test(raw)) raw = question < 0 ? '' : raw.slice(question + 1);
  else if (raw.startsWith('?')) raw = raw.slice(1);
  const parsed = parseQueryString(raw);
  for (const name of Object.keys(parsed)) {
    if (NOT_FILTERS.has(name)) throw new ApiError('invalid_parameter', `query: ${name} is not a filter: an alert starts at its creation and sends every match`, 'query');
  }
  const result = eventQuerySchema.safeParse(parsed);
  if (!result.success) {
    const body = queryErrorToApiError(result.error);
    throw new ApiError('invalid_parameter', `query: ${body.message}`, 'query');
  }
  const params = Object.fromEntries(
    Object.entries(parsed)
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '')
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return { params, queryString: new URLSearchParams(params).toString() };
}

/** A stored filter as the change feed's query (validated again: the rules may have grown stricter since). */
export function alertEventQuery(params: unknown): EventQuery {
  return eventQuerySchema.parse(params);
}
