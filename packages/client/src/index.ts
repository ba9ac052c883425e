export { DomainIndex, type ClientOptions, type Stats } from './client';
export {
  AbortError,
  AuthenticationError,
  ConnectionError,
  DomainIndexError,
  InternalServerError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  type ErrorCodeOf,
} from './errors';
export type {
  Domain,
  ErrorCode,
  ErrorEnvelope,
  ListEnvelope,
  LookupEnvelope,
  SearchParams,
  StatsEnvelope,
} from './generated/api-types';
export { ERROR_STATUS, LISTING_STATUSES, SORT_FIELDS, SORT_ORDERS, STATUS_FILTERS } from './generated/api-types';
export { DomainPage, PagePromise, type ListOptions } from './pagination';
export type { RateLimitInfo } from './rate-limit';
export type { RequestOptions } from './transport';
