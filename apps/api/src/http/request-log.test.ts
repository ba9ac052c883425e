import { describe, expect, it } from 'vitest';
import { generateApiKey } from '@domain-index/accounts/api-key';
import { redactUrl } from './request-log';

const token = 'q3Z9yXhT0bVw8mKp2LrN5sD7fGjH1aQeC4uI6oPzB0k';

describe('redactUrl', () => {
  it.each([
    [`/dashboard/set-password/${token}`, '/dashboard/set-password/[redacted]'],
    [`/DASHBOARD/Set-Password/${token}`, '/DASHBOARD/Set-Password/[redacted]'],
    [`/dashboard//set-password//${token}/`, '/dashboard//set-password//[redacted]/'],
    [`/dashboard/set%2Dpassword/${token}`, '/dashboard/set%2Dpassword/[redacted]'],
    [`/dashboard/set-password/short`, '/dashboard/set-password/[redacted]'],
    ['/dashboard//set-password//short/', '/dashboard//set-password//[redacted]/'],
    ['/alerts/unsubscribe/alt_AbCdEfGhIjKlMnOpQrSt/t9x2kq.Zm9vYmFyYmF6cXV4cXV1eA', '/alerts/unsubscribe/alt_AbCdEfGhIjKlMnOpQrSt/[redacted]'],
    ['/alerts/Unsubscribe//alt_x//short?x=1', '/alerts/Unsubscribe//alt_x//[redacted]?x=1'],
    ['/alerts/unsubscribe/alt_x/a/b', '/alerts/unsubscribe/alt_x/[redacted]/b'],
    ['/alerts/confirm-email/t9x2kq.Zm9vYmFyYmF6cXV4', '/alerts/confirm-email/[redacted]'],
    [`http://api.example.com/dashboard/set-password/${token}?x=1`, '/dashboard/set-password/[redacted]?x=1'],
    [`/anything/${token}`, '/anything/[redacted]'],
    ['/api/v1/domains/example.com?limit=2', '/api/v1/domains/example.com?limit=2'],
    ['/dashboard/keys/key_0123456789abcdef/usage', '/dashboard/keys/key_0123456789abcdef/usage'],
    ['/api/v1/domains?search=ab&limit=2', '/api/v1/domains?search=ab&limit=2'],
    ['/api/v1/domains?token=abc&search=ab', '/api/v1/domains?token=%5Bredacted%5D&search=ab'],
    ['/api/v1/domains?API_KEY=abc', '/api/v1/domains?API_KEY=%5Bredacted%5D'],
    ['/api/v1/domains?search=dix_live_notakey', '/api/v1/domains?search=%5Bredacted%5D'],
    ['*', '*'],
  ])('%s is logged as %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });

  it('redacts a key in any parameter, in a parameter name and in the path', () => {
    const key = generateApiKey('live');
    for (const url of [`/api/v1/domains?search=${key}`, `/api/v1/domains?search=a&search=${key}`, `/api/v1/domains?${key}=1`, `/api/v1/domains/${key}`, `/api/v1/domains/${encodeURIComponent(key).replace('d', '%64')}`, `/docs?q=x%20${key}`]) {
      const logged = redactUrl(url);
      expect(logged).not.toContain(key.slice(9));
      expect(logged).toContain('redacted');
    }
  });
});
