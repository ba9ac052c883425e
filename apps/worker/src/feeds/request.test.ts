import { describe, expect, it } from 'vitest';
import { parseSources } from '@domain-index/indexer';
import { redact, resolveRequest, withQuery } from './request';

describe('a source request and its secrets', () => {
  const [source] = (() => {
    const parsed = parseSources(
      JSON.stringify([
        {
          id: 'acme',
          name: 'Acme',
          everyMinutes: 60,
          format: 'jsonl',
          feed: 'https://feeds.acme.example/all.jsonl',
          query: { token: 'env:ACME_TOKEN' },
        },
      ]),
    );
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.sources;
  })();

  it('redacts a secret however a URL may have encoded it: raw, percent-encoded or form-encoded', () => {
    const request = resolveRequest(source!, { ACME_TOKEN: 'a b/c+d' });
    const url = withQuery('https://feeds.acme.example/all.jsonl', request.query);
    // URLSearchParams writes a space as '+', encodeURIComponent as %20
    expect(url).toBe('https://feeds.acme.example/all.jsonl?token=a+b%2Fc%2Bd');
    for (const text of [url, 'token=a%20b%2Fc%2Bd', 'token=a b/c+d'])
      expect(redact(text, request.secrets)).toBe(text.slice(0, text.indexOf('=') + 1) + '***');
  });

  it("keeps its credentials for the feed URL's origin", () => {
    expect(resolveRequest(source!, { ACME_TOKEN: 't' }).origin).toBe('https://feeds.acme.example');
  });
});
