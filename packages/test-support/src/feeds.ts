import { Readable } from 'node:stream';

/** A feed record with sensible defaults for a running auction, fixed so that feeds compare equal. */
export function auctionRecord(domain: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    domain_name: domain,
    status: 'auction',
    current_bid: 25,
    bid_count: 2,
    auction_end_time: '2030-01-01T00:00:00.000Z',
    ...extra,
  };
}

/** A JSONL feed stream of these records; strings are taken as raw lines. */
export function jsonlFeed(records: readonly (Record<string, unknown> | string)[]): Readable {
  const text = records.map((record) => (typeof record === 'string' ? record : JSON.stringify(record))).join('\n');
  return Readable.from([`${text}\n`]);
}
