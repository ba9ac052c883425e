import type { Alert } from './generated/api-types';
import { itemsOf, pagesFrom, type ListOptions, type WalkablePage } from './pagination';

/**
 * Your alerts, newest first. The API answers them all at once (a plan allows a few dozen), so
 * this is the one page and the last; it walks like every other list: `for await` on the call or
 * the page gives each alert, `iterPages()` the page. It is also the array of the alerts that
 * `list()` has always resolved to (`length`, indexes, `map`...).
 */
export class AlertPage extends Array<Alert> implements WalkablePage<Alert, AlertPage> {
  // map, filter, slice... give plain arrays, not pages
  static override get [Symbol.species](): ArrayConstructor {
    return Array;
  }

  // private, not an own property: the page compares equal to the plain array of its alerts
  readonly #maxItems: number | undefined;

  constructor(alerts: readonly Alert[] = [], options: ListOptions = {}) {
    super();
    this.push(...alerts);
    this.#maxItems = options.maxItems;
  }

  /** The alerts of this page, as a plain array. */
  get data(): Alert[] {
    return [...this];
  }

  /** Whether a further page exists: never, every alert is on this one. */
  hasNextPage(): boolean {
    return false;
  }

  /** Throws: there is no next page. */
  getNextPage(): Promise<AlertPage> {
    return Promise.reject(new Error('there is no next page; check hasNextPage() first'));
  }

  /** This page, the only one. */
  iterPages(): AsyncGenerator<AlertPage, void, undefined> {
    return pagesFrom<AlertPage>(this);
  }

  /** Every alert, up to `maxItems`. */
  [Symbol.asyncIterator](): AsyncGenerator<Alert, void, undefined> {
    return itemsOf(this.iterPages(), this.#maxItems);
  }
}
