import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainIndexError } from './errors';
import type { WebhookPayload } from './generated/api-types';

/** Why a webhook request was refused. */
export type WebhookFailure =
  /** `webhook-id`, `webhook-timestamp` or `webhook-signature` is absent or empty. */
  | 'missing_header'
  /** `webhook-timestamp` is not a whole number of seconds. */
  | 'invalid_timestamp'
  /** The timestamp is further in the past than the tolerance: possibly a replay. */
  | 'timestamp_too_old'
  /** The timestamp is further in the future than the tolerance. */
  | 'timestamp_too_new'
  /** No `v1` signature of the header matches the body under any of the secrets. */
  | 'no_matching_signature'
  /** The signature matches but the body is empty or not JSON. */
  | 'invalid_payload';

/** A webhook request that is not what Domain Index sent: do not act on it (answer it 400 or 401). */
export class WebhookVerificationError extends DomainIndexError {
  static override readonly kind: string = 'WebhookVerificationError';
  override readonly name = 'WebhookVerificationError';
  declare readonly code: undefined;
  /** Why the request was refused. */
  readonly reason: WebhookFailure;

  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Headers as `Headers`, or as a record such as Node's `req.headers` (any case of the names). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Options of verifyWebhook(). */
export interface VerifyWebhookOptions {
  /** How far the `webhook-timestamp` may be from now, either way, in seconds. Default 300. */
  toleranceSeconds?: number | undefined;
  /** The time to check the timestamp against. Default: the clock of this machine. */
  now?: Date | undefined;
}

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The HMAC key of a `whsec_…` secret (the prefix is optional, as in the reference library). */
function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  // a wrong secret is the receiver's configuration, not a bad request: not a WebhookVerificationError
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) throw new TypeError('a webhook signing secret is "whsec_" followed by base64, as Domain Index showed it');
  return Buffer.from(encoded, 'base64');
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === 'string' || value === undefined) return value;
    // a repeated header: the signatures of each line count; an id or timestamp must be one value
    return name === 'webhook-signature' ? value.join(' ') : value.length === 1 ? value[0] : undefined;
  }
  return undefined;
}

/**
 * Verifies a webhook request from Domain Index, as the Standard Webhooks specification (1.0)
 * defines it, and returns its parsed JSON body: a WebhookPayload (`type` `events` with up to
 * 100 events of the change feed, or `test`; `alert_id`). The body is typed, not checked field
 * by field: a valid signature means Domain Index sent it. Pass the body exactly as received
 * (the raw text or bytes, before any JSON parsing), the request headers, and the alert's
 * signing secret (`whsec_…`); during a rotation, pass both the new and the previous secret.
 *
 * Throws a WebhookVerificationError (with a `reason`) when a header is missing, the timestamp
 * is more than `toleranceSeconds` away from now, or no signature matches.
 *
 * ```ts
 * app.post('/hooks/domain-index', express.raw({ type: 'application/json' }), (req, res) => {
 *   try {
 *     const { type, alert_id, events } = verifyWebhook(req.body, req.headers, process.env.ALERT_SECRET!);
 *     for (const event of events) console.log(alert_id, type, event.type, event.data.object?.domain_name);
 *     res.sendStatus(204);
 *   } catch (error) {
 *     res.sendStatus(error instanceof WebhookVerificationError ? 400 : 500);
 *   }
 * });
 * ```
 */
export function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookPayload {
  const keys = (typeof secret === 'string' ? [secret] : secret).map(secretKey);
  if (keys.length === 0) throw new TypeError('verifyWebhook needs at least one signing secret');
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || id === '' || timestamp === undefined || timestamp === '' || signatures === undefined || signatures === '') {
    throw new WebhookVerificationError('missing_header', 'the request lacks a webhook-id, webhook-timestamp or webhook-signature header');
  }
  if (!/^\d{1,15}$/.test(timestamp.trim())) throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not a whole number of seconds');
  const seconds = Number(timestamp.trim());
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (now - seconds > tolerance) throw new WebhookVerificationError('timestamp_too_old', `webhook-timestamp is more than ${tolerance} s old`);
  if (seconds - now > tolerance) throw new WebhookVerificationError('timestamp_too_new', `webhook-timestamp is more than ${tolerance} s in the future`);

  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const signed = Buffer.concat([Buffer.from(`${id}.${seconds}.`, 'utf8'), body]);
  const given = signatures
    .split(' ')
    .map((entry) => entry.split(','))
    .filter(([version, signature]) => version === 'v1' && signature !== undefined)
    .map(([, signature]) => Buffer.from(signature!, 'utf8'));
  const matches = keys.some((key) => {
    const expected = Buffer.from(createHmac('sha256', key).update(signed).digest('base64'), 'utf8');
    // every candidate is compared, in constant time for equal lengths
    return given.reduce((found, candidate) => (candidate.length === expected.length && timingSafeEqual(candidate, expected)) || found, false);
  });
  if (!matches) throw new WebhookVerificationError('no_matching_signature', 'no signature of the request matches its body under the secret');

  const text = body.toString('utf8');
  if (text === '') throw new WebhookVerificationError('invalid_payload', 'the signed body is empty');
  try {
    return JSON.parse(text) as WebhookPayload;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the signed body is not JSON');
  }
}
