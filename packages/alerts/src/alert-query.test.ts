import { describe, expect, it } from 'vitest';
import { ApiError } from '@domain-index/api-errors/api-error';
import { alertListingsExport, parseAlertQuery } from './alert-query';

const refusal = (text: string) => {
  try {
    parseAlertQuery(text);
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message, param: error.param };
    throw error;
  }
  throw new Error(`accepted ${text}`);
};

describe('parseAlertQuery', () => {
  it('reads a query string, with or without its ?, sorted and without empty parameters', () => {
    expect(parseAlertQuery('tld=ai&type=listing.added&max_price=500&search=')).toEqual({
      params: { max_price: '500', tld: 'ai', type: 'listing.added' },
      queryString: 'max_price=500&tld=ai&type=listing.added',
    });
    expect(parseAlertQuery('?tld=ai').queryString).toBe('tld=ai');
    expect(parseAlertQuery('').queryString).toBe('');
  });

  it('keeps only the query of a pasted change feed URL, whole or as a path, and refuses its position and page size', () => {
    expect(parseAlertQuery('https://api.example.com/api/v1/events?tld=ai&no_hyphens=true#top').queryString).toBe('no_hyphens=true&tld=ai');
    expect(parseAlertQuery('/api/v1/events?type=listing.ended').queryString).toBe('type=listing.ended');
    expect(parseAlertQuery('https://api.example.com/api/v1/events').queryString).toBe('');
    expect(refusal('https://api.example.com/api/v1/events?after=now&tld=ai')).toEqual({
      code: 'invalid_parameter',
      message: 'query: after is not a filter: an alert starts at its creation and sends every match',
      param: 'query',
    });
    expect(refusal('/api/v1/events?limit=10').message).toBe('query: limit is not a filter: an alert starts at its creation and sends every match');
  });

  it("translates a pasted search URL to the feed's filter: no status is running auctions, status=all is every status, sorting and paging dropped", () => {
    expect(parseAlertQuery('https://di.example.com/api/v1/domains?tld=ai&max_price=500&sort=current_bid&order=asc&limit=100&cursor=abc').queryString).toBe(
      'max_price=500&status=auction&tld=ai',
    );
    expect(parseAlertQuery('http://127.0.0.1:8080/api/v1/domains?search=cloud&status=all').queryString).toBe('search=cloud');
    expect(parseAlertQuery('/api/v1/domains?status=dropping&no_numbers=true').queryString).toBe('no_numbers=true&status=dropping');
    expect(parseAlertQuery('/api/v1/domains?status=&ending_within=6').queryString).toBe('ending_within=6&status=auction');
    expect(parseAlertQuery('https://di.example.com/api/v1/domains').queryString).toBe('status=auction');
  });

  it("refuses a pasted search URL's bad filter with the feed's message naming query", () => {
    expect(refusal('https://di.example.com/api/v1/domains?min_price=abc')).toEqual({
      code: 'invalid_parameter',
      message: 'query: min_price must be a number >= 0, written in plain decimal (e.g. 12 or 12.5)',
      param: 'query',
    });
    // what the search itself refuses: ending_within goes with running auctions only
    expect(refusal('/api/v1/domains?status=all&ending_within=6').param).toBe('query');
    expect(refusal('/api/v1/domains?sort=colour').message).toMatch(/^query: sort /);
  });

  it('reads the query of any other pasted URL as the feed query it is', () => {
    expect(parseAlertQuery('https://di.example.com/dashboard/somewhere?tld=io&status=all').queryString).toBe('status=all&tld=io');
    expect(refusal('https://di.example.com/?sort=length').message).toMatch(/^query: sort/);
  });
});

describe('alertListingsExport', () => {
  const exportOf = (text: string) => alertListingsExport(parseAlertQuery(text).params, 'csv');

  it("exports the listings an alert's filter matches: its listing filters, every status unless it names one, the event types dropped", () => {
    expect(exportOf('type=listing.added,listing.updated&tld=ai&max_price=500&no_hyphens=true')).toEqual({ format: 'csv', status: 'all', tld: 'ai', max_price: 500, no_hyphens: true });
    expect(exportOf('status=dropping&search=cloud')).toMatchObject({ status: 'dropping', search: ['cloud'] });
    expect(exportOf('')).toEqual({ format: 'csv', status: 'all' });
  });

  it('keeps a filter on ending auctions to running auctions, as the search and the feed both read it', () => {
    const query = exportOf('ending_within=6&tld=io');
    expect(query.status).toBeUndefined();
    expect(query.ending_within).toBe(6);
  });

  it('reads back what a pasted search URL was stored as: the same listings the search found', () => {
    expect(exportOf('/api/v1/domains?tld=ai&status=all')).toMatchObject({ status: 'all', tld: 'ai' });
    expect(exportOf('/api/v1/domains?tld=ai')).toMatchObject({ status: 'auction', tld: 'ai' });
  });
});
