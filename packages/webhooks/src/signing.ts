import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** The prefix of a signing secret, as Standard Webhooks writes them. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Random bytes in a new secret: the spec asks for 24 to 64. */
const SECRET_BYTES = 32;

/** How long the previous secret keeps signing after a rotation, so receivers can switch over. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The three headers that sign a webhook request (a type, not an interface, so it is a header record). */
export type WebhookSignatureHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. Shown to its owner once. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Whether `value` is a secret this service could have made: `whsec_` and 24 to 64 bytes of base64. */
export function isWebhookSecret(value: string): boolean {
  if (!value.startsWith(WEBHOOK_SECRET_PREFIX)) return false;
  const encoded = value.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

/**
 * A new message id for `webhook-id`: one per delivery, kept on every retry of it, so a receiver
 * can drop the repeats of at-least-once delivery.
 */
export function generateWebhookId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

// Header values must be plain text; the id is also part of the signed content, so keep it unambiguous.
const MESSAGE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Signs a request body with every secret in `secrets` (the current one first; during a rotation's
 * overlap also the previous one): the signature header lists one `v1,<base64>` per secret, space
 * separated, and a receiver accepts the request when any of them verifies. The body must be sent
 * byte for byte as signed. Signing is the reference implementation's (`standardwebhooks`).
 */
export function signWebhook(message: {
  id: string;
  timestamp: Date;
  body: string;
  secrets: readonly string[];
}): WebhookSignatureHeaders {
  if (!MESSAGE_ID.test(message.id))
    throw new Error('a webhook id is 1 to 128 letters, digits, "_" or "-"');
  if (message.secrets.length === 0) throw new Error('a webhook is signed with at least one secret');
  const signatures = message.secrets.map((secret) => {
    // Checked here so a damaged secret fails loudly instead of signing with whatever it decodes to.
    if (!isWebhookSecret(secret)) throw new Error('a webhook signing secret is malformed');
    return new Webhook(secret).sign(message.id, message.timestamp, message.body);
  });
  return {
    'webhook-id': message.id,
    // The same whole seconds the signature covers (the library floors the time).
    'webhook-timestamp': String(Math.floor(message.timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

/**
 * The secrets that sign at `now`: the current one, and the previous one until
 * ROTATION_OVERLAP_MS after the rotation that replaced it.
 */
export function signingSecrets(state: {
  current: string;
  previous?: { secret: string; rotatedAt: Date } | undefined;
  now: Date;
}): string[] {
  const { current, previous, now } = state;
  if (previous === undefined) return [current];
  return now.getTime() - previous.rotatedAt.getTime() < ROTATION_OVERLAP_MS
    ? [current, previous.secret]
    : [current];
}
