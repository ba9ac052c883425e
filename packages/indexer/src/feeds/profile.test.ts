import { describe, expect, it } from 'vitest';
import { parseFeedProfile, type FeedProfileInput } from './profile';
import { SHIPPED_PROFILE_INPUTS, SHIPPED_PROFILE_NAMES, SHIPPED_PROFILES } from './profiles';

const minimal: FeedProfileInput = {
  container: { type: 'jsonl' },
  status: { constant: 'auction' },
  fields: { domain_name: 'name' },
};

const mistake = (change: Record<string, unknown>) => {
  const result = parseFeedProfile({ ...minimal, ...change });
  return result.ok ? 'accepted' : `${result.path}: ${result.reason}`;
};

describe('feed profiles', () => {
  it('ships the five marketplace profiles, each valid', () => {
    expect(SHIPPED_PROFILE_NAMES).toEqual(['godaddy-auctions', 'namecheap-market', 'dynadot-auctions', 'sedo-auctions', 'parkio-auctions']);
    for (const name of SHIPPED_PROFILE_NAMES) expect(parseFeedProfile(SHIPPED_PROFILE_INPUTS[name]).ok).toBe(true);
  });

  it('fills in the defaults and turns every field into a list of rules', () => {
    const result = parseFeedProfile(minimal);
    expect(result).toEqual({
      ok: true,
      profile: {
        container: { type: 'jsonl' },
        compression: 'auto',
        timeZone: 'UTC',
        currency: 'USD',
        nullValues: [],
        status: { constant: 'auction' },
        fields: { domain_name: [{ from: 'name' }] },
      },
    });
    expect(SHIPPED_PROFILES['sedo-auctions']!.container).toEqual({
      type: 'delimited',
      delimiter: ';',
      columns: ['domain', 'start_unix', 'end_unix', 'price', 'currency', 'bid_count'],
      skipLines: 0,
      encoding: 'iso-8859-1',
      quote: null,
      htmlEntities: true,
    });
  });

  it.each([
    [{ fields: {} }, 'fields.domain_name: needs domain_name'],
    [{ fields: { domain_name: 'name', price: 'price' } }, "fields: Unrecognized key(s) in object: 'price'"],
    [{ fields: { domain_name: 'name', current_bid: { from: 'price', currncy: 'EUR' } } }, "fields.current_bid: Unrecognized key(s) in object: 'currncy'"],
    [{ fields: { domain_name: 'name', current_bid: { from: 'price', currency: 'euro' } } }, 'fields.current_bid.currency: must be a three-letter ISO 4217 code such as USD'],
    [{ fields: { domain_name: 'name', bid_count: { from: 'bids', currency: 'EUR' } } }, 'fields.bid_count.currency: only a money field takes a currency'],
    [{ fields: { domain_name: 'name', auction_end_time: { from: 'end', format: 'yyyy-MM-dd Q' } } }, 'fields.auction_end_time.format: unknown letters "Q" in pattern "yyyy-MM-dd Q"'],
    [{ fields: { domain_name: 'name', auction_end_time: [{ from: 'a' }, { from: 'b', format: 'dd' }] } }, 'fields.auction_end_time.1.format: pattern "dd" has no year'],
    [{ fields: { domain_name: 'name', current_bid: { from: 'price', constant: 5 } } }, 'fields.current_bid: needs exactly one of from, constant and template'],
    [{ fields: { domain_name: 'name', bid_count: { from: 'bids', map: { a: 'b' } } } }, 'fields.bid_count.map: only a text field (auction_type, marketplace_url) takes a map'],
    [{ fields: { domain_name: 'name', bid_count: { from: 'x', parse: 'years-since' } } }, 'fields.bid_count.parse: years-since is for domain_age only'],
    [{ fields: { domain_name: 'name', marketplace_url: { template: 'https://m.example/d/{name' } } }, 'fields.marketplace_url.template: "{" at 21 is not closed'],
    [{ fields: { domain_name: 'name', marketplace_url: { template: 'https://m.example/d/' } } }, 'fields.marketplace_url.template: names no {field}; a fixed text is a constant'],
    [{ fields: { domain_name: 'name', marketplace_url: { template: '{name}' } } }, 'fields.marketplace_url.template: must start with http:// or https:// and a host'],
    [{ fields: { domain_name: 'name', marketplace_url: [{ from: 'link' }, { template: 'm.example/{name}' }] } }, 'fields.marketplace_url.1.template: must start with http:// or https:// and a host'],
    [{ fields: { domain_name: 'name', seoa_backlinks: { template: '{links}' } } }, 'fields.seoa_backlinks.template: only a text field (auction_type, marketplace_url) takes a template'],
    [{ fields: { domain_name: 12 } }, 'fields.domain_name: Expected object, received number'],
    [{ fields: { domain_name: [] } }, 'fields.domain_name: needs at least one rule'],
    [{ status: { from: 'type' } }, 'status: from needs a map (or parse "boolean")'],
    [{ status: { from: 'type', parse: 'boolean', true: 'available' } }, 'status: parse "boolean" needs true and false, and no map'],
    [{ status: { constant: 'sold' } }, "status.constant: Invalid enum value. Expected 'auction' | 'dropping' | 'available', received 'sold'"],
    [{ status: {} }, 'status: needs exactly one of constant and from'],
    [{ container: { type: 'xml' } }, "container.type: Invalid discriminator value. Expected 'jsonl' | 'json' | 'delimited'"],
    [{ container: { type: 'delimited' } }, 'container: needs either "header": true or a "columns" list'],
    [{ container: { type: 'delimited', header: true, delimiter: '||' } }, 'container.delimiter: String must contain exactly 1 character(s)'],
    [{ container: { type: 'delimited', header: true, encoding: 'utf-16' } }, "container.encoding: Invalid enum value. Expected 'utf-8' | 'iso-8859-1' | 'windows-1252', received 'utf-16'"],
    [{ pagination: { pageUrl: '/page/{page}' } }, 'pagination: needs a json container (the record array of each page)'],
    [{ container: { type: 'json', records: 'items' }, pagination: { pageUrl: '/page' } }, 'pagination.pageUrl: must contain {page}'],
    [{ container: { type: 'json', records: 'items' }, pagination: { pageUrl: '/p/{page}', nextUrlField: 'next' } }, 'pagination: needs exactly one of nextUrlField and pageUrl'],
    [{ container: { type: 'json', records: 'items' }, pagination: { nextUrlField: 'next', maxPages: 0 } }, 'pagination.maxPages: Number must be greater than or equal to 1'],
    [{ timeZone: 'Mars/Olympus' }, 'timeZone: must be an IANA time zone such as America/New_York'],
    [{ compression: 'bzip2' }, "compression: Invalid enum value. Expected 'auto' | 'none' | 'gzip' | 'zip', received 'bzip2'"],
  ])('names the mistake in %j', (change, message) => {
    expect(mistake(change)).toBe(message);
  });
});
