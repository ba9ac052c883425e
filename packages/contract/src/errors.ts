import { z } from 'zod';

/**
 * Every error code the API returns, with its HTTP status. The spec's table plus the three
 * additions of decisions.md (`not_found`, `method_not_allowed`, `internal_error`), the change
 * feed's `cursor_expired` (a cursor older than the events kept) and the alerts' `alert_not_found`,
 * `delivery_not_found` and `alert_limit_reached` (the plan's number of alerts), and the watchlists'
 * `watchlist_not_found`, `watch_limit_reached` (the plan's number of watched names),
 * `watchlist_in_use` (an alert delivers its events) and `refresh_limit_reached` (the key's
 * registration checks an hour), and the exports'
 * `export_too_large` (more rows than the plan lets one export stream); a client must
 * handle exactly these.
 */
export const ERROR_STATUS = {
  api_key_in_query: 400,
  invalid_parameter: 400,
  unknown_parameter: 400,
  invalid_domain: 400,
  missing_api_key: 401,
  invalid_authorization_header: 401,
  invalid_api_key: 401,
  domain_not_found: 404,
  alert_not_found: 404,
  delivery_not_found: 404,
  alert_limit_reached: 403,
  watchlist_not_found: 404,
  watch_limit_reached: 403,
  watchlist_in_use: 409,
  refresh_limit_reached: 429,
  export_too_large: 403,
  not_found: 404,
  method_not_allowed: 405,
  cursor_expired: 410,
  rate_limited: 429,
  internal_error: 500,
  key_lookup_unavailable: 503,
  plan_lookup_unavailable: 503,
  rate_limit_unavailable: 503,
  query_failed: 503,
} as const satisfies Record<string, number>;

/** A machine-readable error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** All error codes, in the order of the table above. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** The only codes whose envelope carries `param` (decisions.md). */
export const CODES_WITH_PARAM = ['invalid_parameter', 'unknown_parameter', 'api_key_in_query'] as const;

/** The error envelope: `{ error: { code, message, param? } }`. */
export const errorEnvelopeSchema = z
  .object({
    error: z
      .object({
        code: z.enum(ERROR_CODES).describe('Machine-readable code'),
        message: z.string().describe('Human-readable reason'),
        param: z
          .string()
          .optional()
          .describe(
            'The offending parameter; only on invalid_parameter, unknown_parameter and api_key_in_query',
          ),
      })
      .strict(),
  })
  .strict();

/** The error envelope as sent on the wire. */
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** The `error` object inside the envelope. */
export type ApiErrorBody = ErrorEnvelope['error'];
