import type { Contract } from '@domain-index/contract';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { RouteDeps } from '../app';
import type { EventCursorCodec } from '@domain-index/events/event-cursor';
import { feedPage, type FeedStart } from '@domain-index/events/feed-page';
import { ApiError } from '@domain-index/api-errors/api-error';
import { META } from '../http/meta';
import { orQueryFailed } from '@domain-index/api-errors/query-failed';
import { setRowsReturned } from '../usage/count-usage';
import { ownerOfKey } from '@domain-index/alerts/alert-store';
import { findWatchlist } from '@domain-index/names/watchlist-store';
import { callerOf } from './alerts';
import { databaseOf, readsOf } from '../http/request-deadline';

/** EVENT_RETENTION_DAYS's default, for an app built without it (tests). */
const DEFAULT_EVENT_RETENTION_DAYS = 14;

/**
 * GET /api/v1/events: the change feed, in commit order from a stored position, filtered like a
 * search. Every page carries the cursor to resume from, an empty one included.
 */
export function eventsRoute(deps: RouteDeps, cursors: EventCursorCodec): AppRouteImplementation<Contract['listEvents']> {
  return async ({ query, res }) => {
    if (query.watchlist !== undefined) {
      // a watchlist's events are its owner's alone: another owner's id is as absent as a made-up one
      const watchlist = query.watchlist;
      const { owner } = await orQueryFailed(() => ownerOfKey(databaseOf(res, deps), callerOf(res).keyId));
      if ((await orQueryFailed(() => findWatchlist(databaseOf(res, deps).db, owner, watchlist))) === undefined) {
        throw new ApiError('watchlist_not_found', `no watchlist ${watchlist.slice(0, 40)} of yours`);
      }
    }
    let start: FeedStart = 'oldest';
    if (query.after === 'now') start = 'now';
    else if (query.after !== undefined) {
      const position = cursors.decode(query.after);
      if (position === null) {
        throw new ApiError('invalid_parameter', 'after is malformed or was not issued by this API; pass a page\'s next_cursor back unchanged, or now', 'after');
      }
      start = { after: position };
    }
    const page = await orQueryFailed(() => readsOf(res, deps).read('events_page', (database) => feedPage(database, start, query)));
    if ('expired' in page) {
      throw new ApiError(
        'cursor_expired',
        `the cursor points before the oldest event kept (events are kept ${deps.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS} days); start again without after, or with after=now`,
      );
    }
    setRowsReturned(res, page.events.length);
    return {
      status: 200,
      body: {
        object: 'list',
        data: page.events,
        pagination: { page_size: query.limit, next_cursor: cursors.encode(page.resumeAfter), has_more: page.hasMore },
        meta: META,
      },
    };
  };
}
