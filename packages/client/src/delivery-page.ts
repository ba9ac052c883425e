import type { DeliveryAttempt, DeliveryListEnvelope, DeliveryParams } from './generated/api-types';
import { itemsOf, pagesFrom, type ListOptions, type WalkablePage } from './pagination';
import type { RequestOptions } from './transport';

/** Fetches one page of an alert's delivery log for a set of parameters (`after` included). */
export type FetchDeliveryPage = (params: DeliveryParams, options: RequestOptions) => Promise<DeliveryListEnvelope>;

/**
 * One page of an alert's webhook attempts (the last 7 days), newest first.
 * `for await (const attempt of page)` walks every attempt from this page on, following
 * `next_cursor` until `has_more` is false; `iterPages()` does the same page by page.
 */
export class DeliveryPage implements WalkablePage<DeliveryAttempt, DeliveryPage> {
  /** The attempts of this page, newest first. */
  readonly data: DeliveryAttempt[];
  /** The cursor of the older attempts (pass it as `after`); null on the last page. */
  readonly next_cursor: string | null;
  /** Whether older attempts follow. */
  readonly has_more: boolean;
  readonly pagination: DeliveryListEnvelope['pagination'];

  constructor(
    envelope: DeliveryListEnvelope,
    private readonly params: DeliveryParams,
    private readonly options: ListOptions,
    private readonly fetchPage: FetchDeliveryPage,
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

  /** The page of older attempts; throws when there is none. */
  async getNextPage(): Promise<DeliveryPage> {
    const cursor = this.next_cursor;
    if (!this.hasNextPage() || cursor === null) throw new Error('there is no next page; check hasNextPage() first');
    const envelope = await this.fetchPage({ ...this.params, after: cursor }, this.options);
    return new DeliveryPage(envelope, this.params, this.options, this.fetchPage);
  }

  /** This page and every following one, up to `maxPages`. */
  iterPages(): AsyncGenerator<DeliveryPage, void, undefined> {
    return pagesFrom<DeliveryPage>(this, this.options.maxPages);
  }

  /** Every attempt from this page on, up to `maxItems` and `maxPages`. */
  [Symbol.asyncIterator](): AsyncGenerator<DeliveryAttempt, void, undefined> {
    return itemsOf(this.iterPages(), this.options.maxItems);
  }
}
