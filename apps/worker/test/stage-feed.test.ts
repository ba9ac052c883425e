import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { sql } from '@domain-index/db';
import { DEFAULT_SOURCES, readFeed, type SourceConfig } from '@domain-index/indexer';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStagingTable, stageFeed, type JsonlStaging, type RejectedRow } from '../src/indexing/stage-batch';
import { copyRow } from '../src/indexing/copy-rows';
import { LISTING_COLUMNS, type StagedListing } from '../src/indexing/listing-columns';
import { countLines } from '../src/indexing/pieces-of-lines';
import { startStagingCopy } from '../src/indexing/staging-copy';
import { stageJsonlPiece } from '../src/indexing/stage-jsonl-piece';
import { startStagingPool } from '../src/indexing/staging-pool';
import { StagedNames } from '../src/indexing/staged-names';
import { auctionRecord } from '@domain-index/test-support/feeds';

const source: SourceConfig = { ...DEFAULT_SOURCES[0]!, id: 'alpha', format: 'jsonl' };

/**
 * A JSONL feed with what line numbering can trip over: a byte order mark, CRLF and lone-CR
 * line breaks, blank lines, and bad rows of every kind spread over many pieces.
 */
function awkwardFeed(): string {
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    if (i % 37 === 5) lines.push('{"domain_name": "broken');
    else if (i % 41 === 7) lines.push('[1, 2]');
    else if (i % 43 === 9) lines.push('');
    else if (i % 47 === 11) lines.push(JSON.stringify(auctionRecord(`bad_name${i}.com`)));
    else if (i % 53 === 13) lines.push(JSON.stringify(auctionRecord(`other${i}.com`, { source: 'beta' })));
    else lines.push(JSON.stringify(auctionRecord(`name${i}.com`, { current_bid: i })));
  }
  const breaks = (i: number) => (i % 3 === 0 ? '\r\n' : i % 29 === 0 ? '\r' : '\n');
  return `\uFEFF${lines.map((line, i) => `${line}${breaks(i)}`).join('')}`;
}

/** Streams text in small uneven chunks, so that CRLFs and characters fall across chunk ends. */
function streamOf(text: string): Readable {
  const bytes = Buffer.from(text);
  const parts: Buffer[] = [];
  for (let at = 0, size = 7; at < bytes.length; at += size, size = (size * 3) % 61 + 5) parts.push(bytes.subarray(at, at + size));
  return Readable.from(parts);
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`staging a JSONL feed on ${engine}`, () => {
    let test: TestDatabase;
    beforeAll(async () => {
      test = await createTestDatabase(engine);
    });
    afterAll(async () => {
      await test.dispose();
    });

    async function stage(from: Parameters<typeof stageFeed>[3], jsonl?: JsonlStaging) {
      const table = await createStagingTable(test.database);
      const rejected: RejectedRow[] = [];
      const rowsRead = await stageFeed(test.database, table, source, from, (row) => rejected.push(row), undefined, jsonl);
      const rows = await test.database.rows(sql`select * from ${sql.identifier(table)} order by line`);
      await test.database.rows(sql`drop table ${sql.identifier(table)}`);
      return { rowsRead, rejected, rows };
    }

    it('stores every value exactly through COPY, the text format\'s own characters included', async () => {
      const table = await createStagingTable(test.database);
      const listing = {
        ...(Object.fromEntries(LISTING_COLUMNS.map(([name]) => [name, null])) as StagedListing),
        domain_name: 'every.co.uk',
        tld: 'co.uk',
        status: 'auction',
        source: 'alpha',
        length: 5,
        has_hyphens: false,
        has_numbers: true,
        word_count: 1,
        index_score: 42,
        current_bid: 1234.56,
        buy_now_price: 999_999_999.99,
        auction_end_time: '2026-11-25T08:09:10.123Z',
        auction_type: 'back\\slash\ttab\nline\rreturn \\N \\.',
        seob_backlinks: 9_007_199_254_740_991,
        spam_risk: 12.3,
        seob_cf: 0.1,
      };
      const copy = startStagingCopy(test.database, table);
      await copy.add(copyRow(7, listing), 1);
      await copy.add(copyRow(8, { ...listing, domain_name: 'second.co.uk' }), 2);
      await copy.finish();
      const rows = await test.database.rows<Record<string, unknown>>(sql`
        select line, domain_name, auction_type, marketplace_url, has_hyphens, has_numbers, current_bid::text, buy_now_price::text,
               auction_end_time = '2026-11-25T08:09:10.123Z'::timestamptz as same_end, seob_backlinks::text, spam_risk::text, seob_cf::text, start_price
        from ${sql.identifier(table)} order by line`);
      await test.database.rows(sql`drop table ${sql.identifier(table)}`);
      expect(rows).toEqual([
        {
          line: 7,
          domain_name: 'every.co.uk',
          auction_type: listing.auction_type,
          marketplace_url: null,
          has_hyphens: false,
          has_numbers: true,
          current_bid: '1234.56',
          buy_now_price: '999999999.99',
          same_end: true,
          seob_backlinks: '9007199254740991',
          spam_risk: '12.3',
          seob_cf: '0.1',
          start_price: null,
        },
        expect.objectContaining({ line: 8, domain_name: 'second.co.uk' }) as unknown,
      ]);
    });

    it('stages the same rows, bad rows and line numbers in worker threads as line by line, from text or records', async () => {
      const text = awkwardFeed();
      // the reference: the line reader, one record at a time
      const expected = await stage({ records: readFeed(streamOf(text), 'jsonl') });
      expect(expected.rowsRead).toBe(293);
      expect(expected.rows).toHaveLength(264);
      expect(expected.rejected).toHaveLength(29);
      expect(expected.rejected.slice(0, 4)).toEqual([
        { line: 6, reason: 'invalid JSON' },
        { line: 8, reason: 'not a JSON object' },
        { line: 12, reason: expect.stringContaining('not a valid domain name') as unknown },
        { line: 14, reason: "source beta does not match the batch's source alpha" },
      ]);
      const inThread = await stage({ input: streamOf(text) }, { pieceBytes: 256, workersAfterBytes: Infinity, workers: 0 });
      const inWorkers = await stage({ input: streamOf(text) }, { pieceBytes: 256, workersAfterBytes: 1_000, workers: 2 });
      expect(inThread).toEqual(expected);
      expect(inWorkers).toEqual(expected);
      // records (a profile's) are shared out in runs the same way
      const records = await stage(
        { records: readFeed(streamOf(text), 'jsonl'), parallel: true },
        { pieceBytes: 256, workersAfterBytes: Infinity, workers: 2, recordsPerRun: 7, workersAfterRecords: 20 },
      );
      expect(records).toEqual(expected);
    });

    it('sees a name listed twice by every path, also when two workers stage its two lines', async () => {
      const lines = Array.from({ length: 400 }, (_, i) => JSON.stringify(auctionRecord(`name${i}.com`)));
      const paths: { label: string; from: () => Parameters<typeof stageFeed>[3]; jsonl: JsonlStaging }[] = [
        { label: 'JSONL in this thread', from: () => ({ input: streamOf(feed) }), jsonl: { pieceBytes: 256, workersAfterBytes: Infinity, workers: 0 } },
        { label: 'JSONL in workers', from: () => ({ input: streamOf(feed) }), jsonl: { pieceBytes: 256, workersAfterBytes: 1_000, workers: 2 } },
        {
          label: 'records in workers',
          from: () => ({ records: readFeed(streamOf(feed), 'jsonl'), parallel: true }),
          jsonl: { pieceBytes: 256, workersAfterBytes: Infinity, workers: 2, recordsPerRun: 7, workersAfterRecords: 20 },
        },
        { label: 'CSV', from: () => ({ input: streamOf(csv), format: 'csv' }), jsonl: { pieceBytes: 256, workersAfterBytes: Infinity, workers: 0 } },
      ];
      let feed = '';
      let csv = '';
      const seen = async (path: (typeof paths)[number]) => {
        const table = await createStagingTable(test.database);
        const names = new StagedNames();
        await stageFeed(test.database, table, source, path.from(), () => undefined, undefined, path.jsonl, undefined, names);
        await test.database.rows(sql`drop table ${sql.identifier(table)}`);
        return names.mayRepeat;
      };
      // the first line's name again at the end, pieces apart
      for (const twice of [false, true]) {
        const all = twice ? [...lines, JSON.stringify(auctionRecord('name0.com', { current_bid: 1 }))] : lines;
        feed = `${all.join('\n')}\n`;
        csv = `domain_name,status\n${all.map((line) => `${(JSON.parse(line) as { domain_name: string }).domain_name},auction`).join('\n')}\n`;
        for (const path of paths) expect({ path: path.label, twice, mayRepeat: await seen(path) }).toEqual({ path: path.label, twice, mayRepeat: twice });
      }
    });
  });
}

describe('staging workers', () => {
  it('answer each piece exactly as this thread stages it, in the order sent', async () => {
    const text = Buffer.from(awkwardFeed());
    // cut right after a line break (a CR would do too: LF alone keeps the test simple)
    const cut = [0, ...[4_000, 9_000, 15_000].map((at) => text.lastIndexOf(10, at) + 1), text.length];
    const pieces = cut.slice(0, -1).map((start, i) => new Uint8Array(text.subarray(start, cut[i + 1])));
    const firstLines = pieces.map((_, i) => 1 + pieces.slice(0, i).reduce((sum, piece) => sum + countLines(piece), 0));
    const expected = pieces.map((piece, i) => stageJsonlPiece(piece, firstLines[i]!, source));
    const pool = startStagingPool(source, 2);
    try {
      const answered = await Promise.all(pieces.map((piece, i) => pool.stage(new Uint8Array(piece), firstLines[i]!)));
      expect(answered).toEqual(expected);
      expect(answered.reduce((sum, piece) => sum + piece.items, 0)).toBe(293);
    } finally {
      await pool.close();
    }
    await expect(pool.stage(new Uint8Array(pieces[0]!), 1)).rejects.toThrow('closed');
  });
});
