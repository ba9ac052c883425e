import type { DeliveryAttempt, DeliveryListEnvelope, DeliveryParams } from './generated/api-types';
import { AfterCursorPage } from './after-cursor-page';
import type { RequestOptions } from './transport';

/** Fetches one page of an alert's delivery log for a set of parameters (`after` included). */
export type FetchDeliveryPage = (params: DeliveryParams, options: RequestOptions) => Promise<DeliveryListEnvelope>;

/**
 * One page of an alert's webhook attempts (the last 7 days), newest first.
 * `for await (const attempt of page)` walks every attempt from this page on, following
 * `next_cursor` until `has_more` is false; `iterPages()` does the same page by page.
 */
export class DeliveryPage extends AfterCursorPage<DeliveryAttempt, DeliveryParams, DeliveryListEnvelope> {
  protected next(envelope: DeliveryListEnvelope): this {
    return new DeliveryPage(envelope, this.params, this.options, this.fetchPage) as this;
  }
}
