import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The token of an alert's unsubscribe link: an HMAC of the alert's id under the service's shared
 * secret. Nothing is stored, every instance can check it, and it cannot be made for another
 * alert.
 */
export function unsubscribeToken(secret: Buffer, alertId: string): string {
  return createHmac('sha256', secret).update(`unsubscribe:${alertId}`).digest().subarray(0, 18).toString('base64url');
}

/** Whether `token` is the unsubscribe token of `alertId`, compared in constant time. */
export function isUnsubscribeToken(secret: Buffer, alertId: string, token: string): boolean {
  const expected = Buffer.from(unsubscribeToken(secret, alertId));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
