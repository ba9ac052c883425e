import type { Domain, ListEnvelope, SearchParams } from './generated/api-types';
import type { RequestOptions } from './transport';

/** Options of a walk over pages (a search, the change feed). */
export interface ListOptions extends RequestOptions {
  /** Stop after this many rows in total (iteration over rows). */
  maxItems?: number | undefined;
  /** Stop after this many pages (iteration over pages or rows). */
  maxPages?: number | undefined;
}

/** Fetches one page for a set of parameters and a cursor. */
export type FetchPage = (params: SearchParams, options: RequestOptions) => Promise<ListEnvelope>;

/** A page that knows whether another follows and how to fetch it. */
interface ChainedPage<Page> {
  hasNextPage(): boolean;
  getNextPage(): Promise<Page>;
}

/** A page that walks on: page by page with `iterPages()`, item by item with `for await`. */
export interface WalkablePage<Item, Page> extends AsyncIterable<Item> {
  iterPages(): AsyncGenerator<Page, void, undefined>;
}

/** The items of a page type: `Domain` for a DomainPage. */
export type ItemOf<Page> = Page extends AsyncIterable<infer Item> ? Item : never;

/** `first` and every page after it, up to `maxPages`; the next is requested only when the caller asks for it. */
export async function* pagesFrom<Page extends ChainedPage<Page>>(first: Page, maxPages = Infinity): AsyncGenerator<Page, void, undefined> {
  yield first;
  let pages = 1;
  let next = first.hasNextPage() && pages < maxPages ? await first.getNextPage() : undefined;
  while (next !== undefined) {
    yield next;
    pages += 1;
    next = next.hasNextPage() && pages < maxPages ? await next.getNextPage() : undefined;
  }
}

/** The items of `pages` in order, up to `maxItems` (no page is requested past the last one wanted). */
export async function* itemsOf<Item>(pages: AsyncIterable<{ readonly data: readonly Item[] }>, maxItems = Infinity): AsyncGenerator<Item, void, undefined> {
  if (maxItems <= 0) return;
  let items = 0;
  for await (const page of pages) {
    for (const item of page.data) {
      yield item;
      items += 1;
      if (items >= maxItems) return;
    }
  }
}

/**
 * One page of search results. `for await (const domain of page)` walks every row from this
 * page on, following `next_cursor` until `has_more` is false; `iterPages()` does the same page
 * by page. Stopping early (`break`) sends no further request.
 */
export class DomainPage implements WalkablePage<Domain, DomainPage> {
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
  iterPages(): AsyncGenerator<DomainPage, void, undefined> {
    return pagesFrom<DomainPage>(this, this.options.maxPages);
  }

  /** Every row from this page on, up to `maxItems` and `maxPages`. */
  [Symbol.asyncIterator](): AsyncGenerator<Domain, void, undefined> {
    return itemsOf(this.iterPages(), this.options.maxItems);
  }
}

/**
 * What a list call returns (`client.domains.list()`, `client.events.list()`): await it for the
 * first page, or iterate it directly with `for await` for every item. The first request is
 * sent when either starts.
 */
export class PagePromise<Page extends WalkablePage<ItemOf<Page>, Page> = DomainPage> implements PromiseLike<Page>, AsyncIterable<ItemOf<Page>> {
  private first: Promise<Page> | undefined;

  constructor(private readonly load: () => Promise<Page>) {}

  private firstPage(): Promise<Page> {
    this.first ??= this.load();
    return this.first;
  }

  then<A = Page, B = never>(
    onfulfilled?: ((value: Page) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page | B> {
    return this.firstPage().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<Page> {
    return this.firstPage().finally(onfinally);
  }

  /** Every page, from the first, up to `maxPages`. */
  async *iterPages(): AsyncGenerator<Page, void, undefined> {
    yield* (await this.firstPage()).iterPages();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ItemOf<Page>, void, undefined> {
    yield* await this.firstPage();
  }
}
