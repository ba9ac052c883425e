import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SHIPPED_PROFILES } from './feeds/profiles';
import { DEFAULT_SOURCES, feedKindOf, parseSources } from './sources';

const source = (extra: Record<string, unknown>) => ({ id: 'market', name: 'Market', everyMinutes: 60, feed: 'https://market.example/feed', ...extra });
const parse = (...entries: Record<string, unknown>[]) => parseSources(JSON.stringify(entries));
const reason = (...entries: Record<string, unknown>[]) => {
  const result = parse(...entries);
  return result.ok ? 'accepted' : result.reason;
};

describe('parseSources', () => {
  it('keeps the old format and fieldMapping sources as they were', () => {
    expect(parse(source({ format: 'csv', fieldMapping: { price: 'current_bid' } }))).toEqual({
      ok: true,
      sources: [{ id: 'market', name: 'Market', everyMinutes: 60, feed: 'https://market.example/feed', format: 'csv', fieldMapping: { price: 'current_bid' } }],
    });
    expect(DEFAULT_SOURCES.map(feedKindOf)).toEqual(['jsonl', 'csv', 'jsonl', 'csv', 'jsonl']);
  });

  it('resolves a shipped profile by name, and validates one written out', () => {
    const shipped = parse(source({ profile: 'sedo-auctions', currencyRates: { EUR: 1.08 }, query: { currency: 'USD', api_key: 'env:SEDO_KEY' } }));
    expect(shipped).toMatchObject({ ok: true, sources: [{ profileName: 'sedo-auctions', profile: SHIPPED_PROFILES['sedo-auctions'], currencyRates: { EUR: 1.08 } }] });
    expect(shipped.ok && feedKindOf(shipped.sources[0]!)).toBe('sedo-auctions');
    const inline = parse(source({ profile: { container: { type: 'jsonl' }, status: { constant: 'auction' }, fields: { domain_name: 'name' } } }));
    expect(inline.ok && inline.sources[0]!.profile?.fields.domain_name).toEqual([{ from: 'name' }]);
    expect(inline.ok && feedKindOf(inline.sources[0]!)).toBe('profile');
  });

  it.each([
    [source({ profile: 'ebay-auctions' }), 'source "market": profile: unknown profile "ebay-auctions"; shipped: godaddy-auctions, namecheap-market, dynadot-auctions, sedo-auctions, parkio-auctions'],
    [source({ profile: { container: { type: 'jsonl' }, status: { constant: 'auction' }, fields: { domain_name: 'n', current_bid: { from: 'p', currency: 'euro' } } } }), 'source "market": profile.fields.current_bid.currency: must be a three-letter ISO 4217 code such as USD'],
    [source({}), 'source "market": format: needs either "format" (jsonl or csv, in our field names) or a "profile"'],
    [source({ format: 'jsonl', profile: 'sedo-auctions' }), 'source "market": format: needs either "format" (jsonl or csv, in our field names) or a "profile"'],
    [source({ profile: 'sedo-auctions', fieldMapping: {} }), 'source "market": fieldMapping: goes with "format"; a profile maps fields itself'],
    [source({ format: 'jsonl', headers: { 'X-API-Key': 'hunter2' } }), 'source "market": headers.X-API-Key: a secret header takes its value from the environment ("env:NAME"), never from the sources file'],
    [source({ format: 'jsonl', headers: { Authorization: 'env:' } }), 'source "market": headers.Authorization: env: must be followed by an environment variable name'],
    [source({ format: 'jsonl', query: { token: 'abc' } }), 'source "market": query.token: a secret query parameter takes its value from the environment ("env:NAME"), never from the sources file'],
    [source({ format: 'jsonl', feed: 'https://market.example/feed?apikey=abc' }), 'source "market": feed: must not contain the secret apikey; put it in "query" with an env: value'],
    [source({ format: 'jsonl', feed: 'https://user:pw@market.example/feed' }), 'source "market": feed: must not contain credentials; use "headers" with an env: value'],
    [source({ format: 'jsonl', currencyRates: { EUR: 0 } }), 'source "market": currencyRates.EUR: Number must be greater than 0'],
    [source({ format: 'jsonl', timeouts: { responseMs: 0 } }), 'source "market": timeouts.responseMs: Number must be greater than or equal to 1'],
    [source({ id: 'Bad Id', format: 'jsonl' }), 'source 1 in the list: id: must be 1-32 characters of a-z, 0-9, _ and -'],
  ])('refuses %j with one line naming the source and the field', (entry, message) => {
    expect(reason(entry)).toBe(message);
  });

  it('names a later source by its id, and a duplicate', () => {
    expect(reason(source({ format: 'jsonl' }), source({ id: 'second', format: 'xml' }))).toBe(
      "source \"second\": format: Invalid enum value. Expected 'jsonl' | 'csv', received 'xml'",
    );
    expect(reason(source({ format: 'jsonl' }), source({ format: 'csv' }))).toBe('source "market": id: duplicate id market');
    expect(reason()).toBe('the list: must list at least one marketplace');
  });
});

describe('examples/sources.marketplaces.json', () => {
  it('wires the five marketplaces to the five shipped profiles', () => {
    const text = readFileSync(new URL('../../../examples/sources.marketplaces.json', import.meta.url), 'utf8');
    const result = parseSources(text);
    expect(result.ok && result.sources.map((source) => [source.id, source.profileName, new URL(source.feed).hostname])).toEqual([
      ['godaddy', 'godaddy-auctions', 'inventory.auctions.godaddy.com'],
      ['namecheap', 'namecheap-market', 'd3ry1h4w5036x1.cloudfront.net'],
      ['dynadot', 'dynadot-auctions', 'www.dynadot.com'],
      ['sedo', 'sedo-auctions', 'sedo.com'],
      ['parkio', 'parkio-auctions', 'park.io'],
    ]);
  });
});
