import type { Event, EventListEnvelope, EventParams } from './generated/api-types';
import { itemsOf, pagesFrom, type ListOptions, type WalkablePage } from './pagination';
import type { RequestOptions } from './transport';

/** Fetches one page of the change feed for a set of parameters (`after` included). */
export type FetchEventPage = (params: EventParams, options: RequestOptions) => Promise<EventListEnvelope>;

/**
 * One page of the change feed. Its `next_cursor` is where to resume: store it once this page's
 * events are handled, and pass it back as `after` (in this process or after a restart) to go on
 * without a gap or a repeat. `for await (const event of page)` walks every event from this page
 * on, following the cursor until `has_more` is false; `iterPages()` does the same page by page.
 */
export class EventPage implements WalkablePage<Event, EventPage> {
  /** The events of this page, in commit order. */
  readonly data: Event[];
  /** Where to resume after this page: pass it as `after`. Never null, even on an empty page. */
  readonly next_cursor: string;
  /** Whether more events are available right now (when false, poll again later from `next_cursor`). */
  readonly has_more: boolean;
  readonly pagination: EventListEnvelope['pagination'];
  readonly meta: EventListEnvelope['meta'];

  constructor(
    envelope: EventListEnvelope,
    private readonly params: EventParams,
    private readonly options: ListOptions,
    private readonly fetchPage: FetchEventPage,
  ) {
    this.data = envelope.data;
    this.pagination = envelope.pagination;
    this.next_cursor = envelope.pagination.next_cursor;
    this.has_more = envelope.pagination.has_more;
    this.meta = envelope.meta;
  }

  /** Whether more events are available right now. */
  hasNextPage(): boolean {
    return this.has_more;
  }

  /** The page after this one (it may be empty once the feed is caught up). */
  async getNextPage(): Promise<EventPage> {
    const envelope = await this.fetchPage({ ...this.params, after: this.next_cursor }, this.options);
    return new EventPage(envelope, this.params, this.options, this.fetchPage);
  }

  /** This page and every following one while `has_more`, up to `maxPages`. */
  iterPages(): AsyncGenerator<EventPage, void, undefined> {
    return pagesFrom<EventPage>(this, this.options.maxPages);
  }

  /** Every event from this page on while `has_more`, up to `maxItems` and `maxPages`. */
  [Symbol.asyncIterator](): AsyncGenerator<Event, void, undefined> {
    return itemsOf(this.iterPages(), this.options.maxItems);
  }
}
