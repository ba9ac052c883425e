import { itemsOf, pagesFrom, type ListOptions } from './pagination';
import type { RequestOptions } from './transport';

/** A list the API pages with an opaque cursor passed back as `after`. */
export interface AfterCursorEnvelope<Item> {
  data: Item[];
  pagination: { next_cursor: string | null; has_more: boolean };
}

/**
 * One page of a list paged by `after` (an alert's delivery log, a watchlist's names).
 * `for await (const item of page)` walks every item from this page on, following `next_cursor`
 * until `has_more` is false; `iterPages()` does the same page by page.
 */
export abstract class AfterCursorPage<Item, Params extends { after?: string | undefined }, Envelope extends AfterCursorEnvelope<Item>> {
  /** The items of this page. */
  readonly data: Item[];
  /** The cursor of the next page (pass it as `after`); null on the last page. */
  readonly next_cursor: string | null;
  /** Whether a further page exists. */
  readonly has_more: boolean;
  readonly pagination: Envelope['pagination'];

  constructor(
    envelope: Envelope,
    protected readonly params: Params,
    protected readonly options: ListOptions,
    protected readonly fetchPage: (params: Params, options: RequestOptions) => Promise<Envelope>,
  ) {
    this.data = envelope.data;
    this.pagination = envelope.pagination;
    this.next_cursor = envelope.pagination.next_cursor;
    this.has_more = envelope.pagination.has_more;
  }

  /** The page of the same kind for the next envelope. */
  protected abstract next(envelope: Envelope): this;

  /** Whether a further page exists. */
  hasNextPage(): boolean {
    return this.has_more && this.next_cursor !== null;
  }

  /** The next page; throws when there is none. */
  async getNextPage(): Promise<this> {
    const cursor = this.next_cursor;
    if (!this.hasNextPage() || cursor === null) throw new Error('there is no next page; check hasNextPage() first');
    return this.next(await this.fetchPage({ ...this.params, after: cursor }, this.options));
  }

  /** This page and every following one, up to `maxPages`. */
  iterPages(): AsyncGenerator<this, void, undefined> {
    return pagesFrom<this>(this, this.options.maxPages);
  }

  /** Every item from this page on, up to `maxItems` and `maxPages`. */
  [Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    return itemsOf(this.iterPages(), this.options.maxItems);
  }
}
