/** A feed that could not be fetched; `retryable` says whether another attempt may succeed. */
export class FeedFetchError extends Error {
  override readonly name = 'FeedFetchError';
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
