import { describe, expect, it } from 'vitest';
import { DOMAIN_FIELDS, domainSchema, type Domain } from './domain';
import { listEnvelopeSchema, lookupEnvelopeSchema, statsEnvelopeSchema } from './envelopes';
import { ERROR_CODES, ERROR_STATUS, errorEnvelopeSchema } from './errors';
import { API_VERSION, COUNTS_NOTE, INDEX_SCORE_CAVEAT } from './texts';

const sampleDomain: Domain = {
  domain_name: 'examplebrand.co.uk',
  tld: 'co.uk',
  status: 'auction',
  source: 'source_1',
  length: 12,
  has_hyphens: false,
  has_numbers: false,
  word_count: 2,
  index_score: 57,
  current_bid: 120.5,
  start_price: 10,
  buy_now_price: null,
  bid_count: 4,
  auction_end_time: '2026-11-22T10:00:00.000Z',
  auction_type: 'auction',
  marketplace_url: 'https://source-1.example/listing/examplebrand.co.uk',
  extensions_taken: 3,
  domain_age: 12,
  valuation: 900,
  spam_risk: 2,
  seoa_dr: 31,
  seoa_backlinks: 1200,
  seob_tf: 18,
  seob_cf: 22,
  seob_backlinks: 800,
  seoc_authority: 25,
  seoc_backlinks: 640,
  keyword_search_volume: 1900,
  open_rank: 3.2,
  rankinga_ranking: null,
  rankingb_ranking: null,
  last_sold_price: null,
  last_sold_year: null,
  last_checked_at: '2026-11-21T07:04:00.000Z',
  updated_at: '2026-11-21T07:04:00.000Z',
};
const meta = { api_version: API_VERSION, index_score: INDEX_SCORE_CAVEAT };

describe('domain object', () => {
  it('has exactly the 35 fields of the spec', () => {
    expect(DOMAIN_FIELDS).toHaveLength(35);
    expect(domainSchema.parse(sampleDomain)).toEqual(sampleDomain);
  });
  it('rejects an omitted field: null is sent, never omission', () => {
    for (const field of DOMAIN_FIELDS) {
      const { [field]: _omitted, ...rest } = sampleDomain;
      expect(domainSchema.safeParse(rest).success, field).toBe(false);
    }
  });
  it('rejects an internal column', () => {
    expect(domainSchema.safeParse({ ...sampleDomain, id: 1 }).success).toBe(false);
  });
  it('requires timestamps in ISO 8601 UTC with milliseconds', () => {
    expect(domainSchema.safeParse({ ...sampleDomain, updated_at: '2026-11-21T07:04:00Z' }).success).toBe(false);
    expect(domainSchema.safeParse({ ...sampleDomain, auction_end_time: null }).success).toBe(true);
  });
});

describe('envelopes', () => {
  it('accepts a list envelope sample', () => {
    const sample = {
      object: 'list',
      data: [sampleDomain],
      pagination: { page_size: 50, page_index: 0, next_cursor: null, has_more: false },
      total: { value: 1, accuracy: 'exact' },
      meta,
    };
    expect(listEnvelopeSchema.parse(sample)).toEqual(sample);
    expect(listEnvelopeSchema.safeParse({ ...sample, total: { value: 1, accuracy: 'rough' } }).success).toBe(false);
    expect(listEnvelopeSchema.safeParse({ ...sample, meta: { ...meta, api_version: 'v2' } }).success).toBe(false);
  });
  it('accepts a lookup envelope sample', () => {
    const sample = { object: 'domain', data: sampleDomain, meta };
    expect(lookupEnvelopeSchema.parse(sample)).toEqual(sample);
    expect(lookupEnvelopeSchema.safeParse({ ...sample, object: 'list' }).success).toBe(false);
  });
  it('accepts a stats envelope sample with exactly the three status keys', () => {
    const sample = {
      object: 'stats',
      data: {
        as_of: '2026-11-21T07:04:00.123Z',
        total: 100,
        live: 50,
        retrievable: 90,
        by_status: { auction: 60, dropping: 10, available: 30 },
        by_source: { source_1: 70, source_2: 30 },
      },
      meta: { ...meta, counts: COUNTS_NOTE },
    };
    expect(statsEnvelopeSchema.parse(sample)).toEqual(sample);
    const extraStatus = { ...sample, data: { ...sample.data, by_status: { ...sample.data.by_status, all: 1 } } };
    expect(statsEnvelopeSchema.safeParse(extraStatus).success).toBe(false);
    const noCounts = { ...sample, meta };
    expect(statsEnvelopeSchema.safeParse(noCounts).success).toBe(false);
  });
  it('accepts an error envelope sample and rejects unknown codes', () => {
    const sample = { error: { code: 'invalid_parameter', message: 'limit must be ...', param: 'limit' } };
    expect(errorEnvelopeSchema.parse(sample)).toEqual(sample);
    expect(errorEnvelopeSchema.safeParse({ error: { code: 'teapot', message: 'x' } }).success).toBe(false);
  });
});

describe('error codes', () => {
  it('is the closed list of the spec plus not_found, method_not_allowed, internal_error and those of the change feed, alerts, watchlists and exports', () => {
    expect([...ERROR_CODES].sort()).toEqual(
      [
        'api_key_in_query', 'invalid_parameter', 'unknown_parameter', 'invalid_domain',
        'missing_api_key', 'invalid_authorization_header', 'invalid_api_key', 'domain_not_found',
        'rate_limited', 'key_lookup_unavailable', 'plan_lookup_unavailable', 'rate_limit_unavailable',
        'query_failed', 'not_found', 'method_not_allowed', 'internal_error',
        'cursor_expired', 'alert_not_found', 'delivery_not_found', 'alert_limit_reached',
        'watchlist_not_found', 'watch_limit_reached', 'watchlist_in_use', 'refresh_limit_reached', 'export_too_large',
      ].sort(),
    );
    expect([ERROR_STATUS.watchlist_not_found, ERROR_STATUS.watch_limit_reached, ERROR_STATUS.watchlist_in_use, ERROR_STATUS.refresh_limit_reached]).toEqual([404, 403, 409, 429]);
    expect(ERROR_STATUS.cursor_expired).toBe(410);
    expect([ERROR_STATUS.alert_not_found, ERROR_STATUS.delivery_not_found, ERROR_STATUS.alert_limit_reached]).toEqual([404, 404, 403]);
    expect(ERROR_STATUS.rate_limited).toBe(429);
    expect(ERROR_STATUS.query_failed).toBe(503);
    expect(ERROR_STATUS.invalid_api_key).toBe(401);
  });
});
