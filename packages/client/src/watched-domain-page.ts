import type { WatchedDomain, WatchedDomainListEnvelope, WatchedDomainParams } from './generated/api-types';
import { itemsOf, pagesFrom, type ListOptions, type WalkablePage } from './pagination';
import type { RequestOptions } from './transport';

/** Fetches one page of a watchlist's names for a set of parameters (`after` included). */
export type FetchWatchedDomainPage = (params: WatchedDomainParams, options: RequestOptions) => Promise<WatchedDomainListEnvelope>;

/**
 * One page of a watchlist's names, in name order.
 * `for await (const name of page)` walks every name from this page on, following
 * `next_cursor` until `has_more` is false; `iterPages()` does the same page by page.
 */
export class WatchedDomainPage implements WalkablePage<WatchedDomain, WatchedDomainPage> {
  /** The names of this page. */
  readonly data: WatchedDomain[];
  /** The cursor of the next names (pass it as `after`); null on the last page. */
  readonly next_cursor: string | null;
  /** Whether more names follow. */
  readonly has_more: boolean;
  readonly pagination: WatchedDomainListEnvelope['pagination'];

  constructor(
    envelope: WatchedDomainListEnvelope,
    private readonly params: WatchedDomainParams,
    private readonly options: ListOptions,
    private readonly fetchPage: FetchWatchedDomainPage,
  ) {
    this.data = envelope.data;
    this.pagination = envelope.pagination;
    this.next_cursor = envelope.pagination.next_cursor;
    this.has_more = envelope.pagination.has_more;
  }

  /** Whether a further page exists. */
  hasNextPage(): boolean {
    return this.has_more && this.next_cursor !== null;
  }

  /** The next page; throws when there is none. */
  async getNextPage(): Promise<WatchedDomainPage> {
    const cursor = this.next_cursor;
    if (!this.hasNextPage() || cursor === null) throw new Error('there is no next page; check hasNextPage() first');
    const envelope = await this.fetchPage({ ...this.params, after: cursor }, this.options);
    return new WatchedDomainPage(envelope, this.params, this.options, this.fetchPage);
  }

  /** This page and every following one, up to `maxPages`. */
  iterPages(): AsyncGenerator<WatchedDomainPage, void, undefined> {
    return pagesFrom<WatchedDomainPage>(this, this.options.maxPages);
  }

  /** Every name from this page on, up to `maxItems` and `maxPages`. */
  [Symbol.asyncIterator](): AsyncGenerator<WatchedDomain, void, undefined> {
    return itemsOf(this.iterPages(), this.options.maxItems);
  }
}
