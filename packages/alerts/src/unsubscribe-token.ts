import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long an unsubscribe link works after the digest that carried it was made. */
export const UNSUBSCRIBE_LINK_DAYS = 90;
const LINK_MS = UNSUBSCRIBE_LINK_DAYS * 86_400_000;

const mac = (secret: Buffer, input: string) => createHmac('sha256', secret).update(input).digest().subarray(0, 18).toString('base64url');

/**
 * The token of an alert's unsubscribe link: when it was made (whole seconds, base 36), a dot,
 * and an HMAC of the alert's id and that time under the service's shared secret. Nothing is
 * stored, every instance can check it, it cannot be made for another alert, and its time cannot
 * be moved without breaking the HMAC.
 */
export function unsubscribeToken(secret: Buffer, alertId: string, issued: Date): string {
  const at = Math.floor(issued.getTime() / 1000).toString(36);
  return `${at}.${mac(secret, `unsubscribe:${alertId}:${at}`)}`;
}

/** What a link's token is worth: good, made by us but older than UNSUBSCRIBE_LINK_DAYS, or not ours at all. */
export type UnsubscribeTokenCheck = 'valid' | 'expired' | 'invalid';

/** Compares in constant time (for equal lengths; the length of a token is no secret). */
function same(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks `token` against `alertId` at `now`. A token of the first links, without a time (an
 * HMAC of the alert's id alone), is recognised and counted as expired: how old it is cannot be
 * known.
 */
export function checkUnsubscribeToken(secret: Buffer, alertId: string, token: string, now: Date): UnsubscribeTokenCheck {
  const dot = token.indexOf('.');
  if (dot < 0) return same(token, mac(secret, `unsubscribe:${alertId}`)) ? 'expired' : 'invalid';
  const at = token.slice(0, dot);
  if (!/^[0-9a-z]{1,10}$/.test(at) || !same(token.slice(dot + 1), mac(secret, `unsubscribe:${alertId}:${at}`))) return 'invalid';
  const issued = parseInt(at, 36) * 1000;
  // a time ahead of ours (a clock that moved back) counts from now: never expired before it is made
  return now.getTime() - issued > LINK_MS ? 'expired' : 'valid';
}
