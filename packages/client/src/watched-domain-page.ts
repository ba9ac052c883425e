import type { WatchedDomain, WatchedDomainListEnvelope, WatchedDomainParams } from './generated/api-types';
import { AfterCursorPage } from './after-cursor-page';
import type { RequestOptions } from './transport';

/** Fetches one page of a watchlist's names for a set of parameters (`after` included). */
export type FetchWatchedDomainPage = (params: WatchedDomainParams, options: RequestOptions) => Promise<WatchedDomainListEnvelope>;

/**
 * One page of a watchlist's names, in name order. `for await (const name of page)` walks every
 * name from this page on, following `next_cursor` until `has_more` is false; `iterPages()` does
 * the same page by page.
 */
export class WatchedDomainPage extends AfterCursorPage<WatchedDomain, WatchedDomainParams, WatchedDomainListEnvelope> {
  protected next(envelope: WatchedDomainListEnvelope): this {
    return new WatchedDomainPage(envelope, this.params, this.options, this.fetchPage) as this;
  }
}
