import type { Domain, ListEnvelope, SearchParams } from './generated/api-types';
import type { RequestOptions } from './transport';

/** Options of a search walk. */
export interface ListOptions extends RequestOptions {
  /** Stop after this many rows in total (iteration over rows). */
  maxItems?: number | undefined;
  /** Stop after this many pages (iteration over pages or rows). */
  maxPages?: number | undefined;
}

/** Fetches one page for a set of parameters and a cursor. */
export type FetchPage = (params: SearchParams, options: RequestOptions) => Promise<ListEnvelope>;

/**
 * One page of search results. `for await (const domain of page)` walks every row from this
 * page on, following `next_cursor` until `has_more` is false; `iterPages()` does the same page
 * by page. Stopping early (`break`) sends no further request.
 */
export class DomainPage implements AsyncIterable<Domain> {
  /** The rows of this page. */
  readonly data: Domain[];
  readonly pagination: ListEnvelope['pagination'];
  /** Rows matching the query (all pages), `exact` or a `planned` estimate. */
  readonly total: ListEnvelope['total'];
  readonly meta: ListEnvelope['meta'];

  constructor(
    envelope: ListEnvelope,
    private readonly params: SearchParams,
    private readonly options: ListOptions,
    private readonly fetchPage: FetchPage,
  ) {
    this.data = envelope.data;
    this.pagination = envelope.pagination;
    this.total = envelope.total;
    this.meta = envelope.meta;
  }

  /** Whether a further page exists. */
  hasNextPage(): boolean {
    return this.pagination.has_more && this.pagination.next_cursor !== null;
  }

  /** The next page; throws when there is none. */
  async getNextPage(): Promise<DomainPage> {
    const cursor = this.pagination.next_cursor;
    if (!this.hasNextPage() || cursor === null) throw new Error('there is no next page; check hasNextPage() first');
    const envelope = await this.fetchPage({ ...this.params, cursor }, this.options);
    return new DomainPage(envelope, this.params, this.options, this.fetchPage);
  }

  /** This page and every following one, up to `maxPages`. */
  async *iterPages(): AsyncGenerator<DomainPage, void, undefined> {
    const maxPages = this.options.maxPages ?? Infinity;
    yield this;
    let pages = 1;
    let next = this.hasNextPage() && pages < maxPages ? await this.getNextPage() : undefined;
    while (next !== undefined) {
      yield next;
      pages += 1;
      next = next.hasNextPage() && pages < maxPages ? await next.getNextPage() : undefined;
    }
  }

  /** Every row from this page on, up to `maxItems` and `maxPages`. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Domain, void, undefined> {
    const maxItems = this.options.maxItems ?? Infinity;
    let items = 0;
    for await (const page of this.iterPages()) {
      for (const domain of page.data) {
        if (items >= maxItems) return;
        items += 1;
        yield domain;
      }
    }
  }
}

/**
 * What `client.domains.list()` returns: await it for the first page, or iterate it directly
 * with `for await` for every row. The first request is sent when either starts.
 */
export class PagePromise implements PromiseLike<DomainPage>, AsyncIterable<Domain> {
  private first: Promise<DomainPage> | undefined;

  constructor(private readonly load: () => Promise<DomainPage>) {}

  private firstPage(): Promise<DomainPage> {
    this.first ??= this.load();
    return this.first;
  }

  then<A = DomainPage, B = never>(
    onfulfilled?: ((value: DomainPage) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  /** Every page, from the first, up to `maxPages`. */
  async *iterPages(): AsyncGenerator<DomainPage, void, undefined> {
    yield* (await this.firstPage()).iterPages();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Domain, void, undefined> {
    yield* await this.firstPage();
  }
}
