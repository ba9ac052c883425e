import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateApiKey } from '@domain-index/accounts/api-key';
import { loggedPath, loggedRequestId, looksSecret, REDACTED } from './logged-path';

const SEED =
  process.env.PROPERTY_SEED === undefined ? undefined : Number(process.env.PROPERTY_SEED);

describe('the request log path', () => {
  it.each([
    [
      '/api/v1/domains?search=cloud+data&status=all&limit=20',
      '/api/v1/domains?search=cloud+data&status=all&limit=20',
    ],
    ['/api/v1/domains?search=cloud%20data', '/api/v1/domains?search=cloud+data'],
    ['/api/v1/domains/example.com', '/api/v1/domains/example.com'],
    ['/api/v1/domains/xn--bcher-kva.de', '/api/v1/domains/xn--bcher-kva.de'],
    ['/api/v1/domains/b%C3%BCcher.de', '/api/v1/domains/b%C3%BCcher.de'],
    ['/api/v1/domains?tld=co.uk&min_price=10.5', '/api/v1/domains?tld=co.uk&min_price=10.5'],
    // an unknown parameter keeps its name, never its value
    ['/api/v1/domains?colour=blue', `/api/v1/domains?colour=${REDACTED}`],
    // a value that is not plain, or looks like a secret
    ['/api/v1/domains?search=Tr0ub4dor%263', `/api/v1/domains?search=${REDACTED}`],
    ['/api/v1/domains?search=CorrectHorse42', `/api/v1/domains?search=${REDACTED}`],
    [`/api/v1/domains/${'a'.repeat(40)}`, `/api/v1/domains/${REDACTED}`],
    ['/api/v1/domains/pass%20word', `/api/v1/domains/${REDACTED}`],
    ['/api/v1/domains?key=anything', `/api/v1/domains?key=${REDACTED}`],
    ['http://example.com/api/v1/stats?x=1', `/api/v1/stats?x=${REDACTED}`],
    ['/api/v1/domains?', '/api/v1/domains'],
  ])('logs %s as %s', (url, logged) => {
    expect(loggedPath(url)).toBe(logged);
  });

  it('redacts a key anywhere, and a name that looks like one', () => {
    const key = generateApiKey('live');
    expect(loggedPath(`/api/v1/domains/${key}`)).toBe(`/api/v1/domains/${REDACTED}`);
    expect(loggedPath(`/api/v1/domains?search=${key}`)).toBe(`/api/v1/domains?search=${REDACTED}`);
    expect(loggedPath(`/api/v1/domains?${key}=1`)).toBe(`/api/v1/domains?${REDACTED}=${REDACTED}`);
  });

  it('keeps our request ids and UUIDs, and redacts a secret-shaped one', () => {
    expect(loggedRequestId('req_0f8e4c5e-9d2b-4e5f-8a1b-2c3d4e5f6a7b')).toBe(
      'req_0f8e4c5e-9d2b-4e5f-8a1b-2c3d4e5f6a7b',
    );
    expect(loggedRequestId('0f8e4c5e-9d2b-4e5f-8a1b-2c3d4e5f6a7b')).toBe(
      '0f8e4c5e-9d2b-4e5f-8a1b-2c3d4e5f6a7b',
    );
    expect(loggedRequestId('order-1234.retry-2')).toBe('order-1234.retry-2');
    expect(loggedRequestId('K6BsvpgDjBDUcm94ol4Ou8CUTwFUB1-xSpITEvTHUqM')).toBe(REDACTED);
  });

  it('never keeps a secret, wherever in a path or query it is and however it is encoded', () => {
    const alphanumeric = fc.stringMatching(/^[A-Za-z0-9]{8,24}$/);
    const secret = fc.oneof(
      // keys
      fc.constantFrom('live', 'test').map((environment) => generateApiKey(environment)),
      // session and link tokens: 256 random bits, base64url
      fc
        .uint8Array({ minLength: 32, maxLength: 32 })
        .map((bytes) => Buffer.from(bytes).toString('base64url')),
      // passwords as the dashboard takes them (12 characters at least) and people choose strong
      // ones: letters and digits with a symbol, or mixing cases and digits
      fc
        .tuple(
          alphanumeric,
          fc.constantFrom('!', '#', '$', '%', '&', '*', '?', '@', '^', '~', '/', '=', '+', ';'),
          alphanumeric,
        )
        .map(([a, symbol, b]) => `${a}${symbol}${b}`),
      fc
        .tuple(
          fc.stringMatching(/^[a-z]{4,8}$/),
          fc.stringMatching(/^[A-Z]{2,4}$/),
          fc.stringMatching(/^[0-9]{2,4}$/),
          fc.stringMatching(/^[a-z]{4,6}$/),
        )
        .map((parts) => parts.join('')),
    );
    const place = fc.constantFrom('segment', 'known value', 'unknown value', 'name', 'search term');
    fc.assert(
      fc.property(secret, place, fc.boolean(), (value, where, absolute) => {
        const encoded = encodeURIComponent(value);
        const url = {
          segment: `/api/v1/domains/${encoded}`,
          'known value': `/api/v1/domains?tld=${encoded}&limit=10`,
          'unknown value': `/api/v1/domains?note=${encoded}`,
          name: `/api/v1/domains?${encoded}=1`,
          'search term': `/api/v1/domains?search=cloud+${encoded}`,
        }[where];
        const logged = loggedPath(absolute ? `http://127.0.0.1:3000${url}` : url);
        expect(logged).not.toContain(value);
        expect(logged).not.toContain(encoded);
        expect(decodeURIComponent(logged.replace(/\+/g, ' '))).not.toContain(value);
      }),
      { numRuns: 2_000, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });

  it('calls plain words, domain names and numbers no secret', () => {
    for (const text of [
      'cloud data',
      'solar-energy.com',
      'xn--bcher-kva',
      '12345',
      'my home',
      'status',
    ])
      expect(looksSecret(text)).toBe(false);
  });
});
