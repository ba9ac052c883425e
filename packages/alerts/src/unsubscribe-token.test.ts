import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkUnsubscribeToken, unsubscribeToken } from './unsubscribe-token';

const secret = Buffer.alloc(32, 7);
const issued = new Date('2026-01-01T12:00:00.000Z');
const later = (days: number, ms = 0) => new Date(issued.getTime() + days * 86_400_000 + ms);

describe('unsubscribe tokens', () => {
  it('are valid for their alert for 90 days after they were made, and expired after', () => {
    const token = unsubscribeToken(secret, 'alt_one', issued);
    expect(token).toMatch(/^[0-9a-z]+\.[\w-]{24}$/);
    expect(checkUnsubscribeToken(secret, 'alt_one', token, issued)).toBe('valid');
    expect(checkUnsubscribeToken(secret, 'alt_one', token, later(90))).toBe('valid');
    expect(checkUnsubscribeToken(secret, 'alt_one', token, later(90, 1000))).toBe('expired');
    expect(checkUnsubscribeToken(secret, 'alt_one', token, later(365))).toBe('expired');
    // a clock behind the link's time: not expired
    expect(checkUnsubscribeToken(secret, 'alt_one', token, later(-1))).toBe('valid');
  });

  it('are not valid for another alert, under another secret, or with their time moved', () => {
    const token = unsubscribeToken(secret, 'alt_one', issued);
    const [at = '', tag = ''] = token.split('.');
    const moved = `${(parseInt(at, 36) + 86_400 * 30).toString(36)}.${tag}`;
    expect(checkUnsubscribeToken(secret, 'alt_two', token, issued)).toBe('invalid');
    expect(checkUnsubscribeToken(Buffer.alloc(32, 8), 'alt_one', token, issued)).toBe('invalid');
    expect(checkUnsubscribeToken(secret, 'alt_one', moved, later(100))).toBe('invalid');
    for (const forged of ['', '.', 'forged-token', `${at}.`, `.${tag}`, `${at}.${tag}x`, `ZZ.${tag}`, `${at}.${tag}.${tag}`]) {
      expect(checkUnsubscribeToken(secret, 'alt_one', forged, issued), forged).toBe('invalid');
    }
  });

  it('count a token of the first links (an HMAC of the alert id, no time) as expired, since its age is unknown', () => {
    const legacy = createHmac('sha256', secret).update('unsubscribe:alt_one').digest().subarray(0, 18).toString('base64url');
    expect(checkUnsubscribeToken(secret, 'alt_one', legacy, issued)).toBe('expired');
    expect(checkUnsubscribeToken(secret, 'alt_two', legacy, issued)).toBe('invalid');
  });
});
