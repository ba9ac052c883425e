/**
 * The feed is readable but does not have the shape its profile describes (a column the profile
 * reads is missing: renamed?). Every record would be read wrong, so the batch is refused whole.
 */
export class FeedFormatError extends Error {
  override readonly name = 'FeedFormatError';
}
