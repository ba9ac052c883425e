export { DomainIndex, type ClientOptions, type Stats } from './client';
export {
  AbortError,
  AuthenticationError,
  ConnectionError,
  CursorExpiredError,
  DomainIndexError,
  InternalServerError,
  InvalidRequestError,
  NotFoundError,
  PermissionDeniedError,
  ConflictError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  type ErrorCodeOf,
} from './errors';
export type {
  Alert,
  AlertWithSecret,
  CreateAlert,
  DeletedAlert,
  DeliveryAttempt,
  DeliveryListEnvelope,
  DeliveryParams,
  DigestPeriod,
  DigestStatus,
  Domain,
  ErrorCode,
  ErrorEnvelope,
  Event,
  EventListEnvelope,
  EventParams,
  EventType,
  ExportParams,
  ListEnvelope,
  LookupEnvelope,
  QueuedDelivery,
  SearchParams,
  StatsEnvelope,
  UpdateAlert,
  WebhookPayload,
  AddedDomains,
  CreatedWatchlist,
  CreateWatchlist,
  DeletedWatchlist,
  Name,
  NameEnvelope,
  NameHistoryEntry,
  Registration,
  RegistrationPhase,
  RemovedDomain,
  UpdateWatchlist,
  WatchedDomain,
  WatchedDomainListEnvelope,
  WatchedDomainParams,
  Watchlist,
} from './generated/api-types';
export { WatchedDomainPage } from './watched-domain-page';
export { DIGEST_PERIODS, DIGEST_STATUSES, ERROR_STATUS, EVENT_TYPES, LISTING_STATUSES, REGISTRATION_PHASES, SORT_FIELDS, SORT_ORDERS, STATUS_FILTERS } from './generated/api-types';
export { AlertPage } from './alert-page';
export { DeliveryPage } from './delivery-page';
export { EventPage } from './event-page';
export { DomainPage, PagePromise, type ItemOf, type ListOptions, type WalkablePage } from './pagination';
export type { RateLimitInfo } from './rate-limit';
export type { RequestOptions } from './transport';
export type { WatchOptions } from './watch';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookFailure, type WebhookHeaders } from './webhooks';
