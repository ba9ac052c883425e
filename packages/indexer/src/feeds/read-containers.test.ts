import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { FeedSyntaxError, type FeedItem } from '../feed-item';
import { gunzip, openZipEntry, sniffCompression } from './decompress';
import { FeedFormatError } from './errors';
import { feedProfileSchema } from './profile';
import { readDelimited, type DelimitedLayout } from './read-delimited';
import { readJsonRecords } from './read-json';
import { readProfileFeed } from './read-profile-feed';

const dir = mkdtempSync(join(tmpdir(), 'di-feeds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(items: AsyncIterable<FeedItem>): Promise<FeedItem[]> {
  const all: FeedItem[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** The text cut into pieces of `size` bytes, as a network delivers it. */
const pieces = (text: string | Buffer, size: number): Readable => {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts);
};

/** A zip of one entry written from a stream: sizes unknown up front, so in a data descriptor. */
async function zipOf(name: string, content: Buffer, options: { zip64?: boolean; entries?: number } = {}): Promise<string> {
  const zip = new yazl.ZipFile();
  for (let i = 0; i < (options.entries ?? 1); i++) {
    zip.addReadStream(Readable.from([content]), i === 0 ? name : `${i}-${name}`, { forceZip64Format: options.zip64 ?? false });
  }
  if (options.zip64 === true) zip.end({ forceZip64Format: true, comment: '' });
  else zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  const path = join(dir, `${name}-${options.zip64 === true ? 'zip64' : 'plain'}-${options.entries ?? 1}.zip`);
  writeFileSync(path, Buffer.concat(chunks));
  return path;
}

describe('readJsonRecords', () => {
  const document = JSON.stringify({ meta: { count: 3 }, database: [{ no: 1 }], data: [{ a: 1 }, 'text', { b: { c: [2] } }], after: true });

  it('streams the array at a path, numbering its elements, whatever the chunking', async () => {
    for (const size of [1, 7, 4096]) {
      expect(await collect(readJsonRecords(pieces(document, size), 'data'))).toEqual([
        { line: 1, record: { a: 1 } },
        { line: 2, error: 'not a JSON object' },
        { line: 3, record: { b: { c: [2] } } },
      ]);
    }
  });

  it('reads a top-level array and a nested path', async () => {
    expect(await collect(readJsonRecords(Readable.from(['[{"x":1},{"x":2}]']), ''))).toEqual([
      { line: 1, record: { x: 1 } },
      { line: 2, record: { x: 2 } },
    ]);
    expect(await collect(readJsonRecords(Readable.from(['{"result":{"items":[{"x":1}]}}']), 'result.items'))).toEqual([{ line: 1, record: { x: 1 } }]);
  });

  it('refuses a document without the array, and text that is not JSON', async () => {
    await expect(collect(readJsonRecords(Readable.from(['{"meta":{},"items":[{"x":1}]}']), 'data'))).rejects.toThrow(new FeedFormatError('no record array at "data" (renamed?)'));
    await expect(collect(readJsonRecords(Readable.from(['{"data":{"x":1}}']), 'data'))).rejects.toBeInstanceOf(FeedFormatError);
    const broken = collect(readJsonRecords(Readable.from(['{"data":[{"x":1},{"x":2},{"x":']), 'data'));
    await expect(broken).rejects.toBeInstanceOf(FeedSyntaxError);
    await expect(broken).rejects.toThrow(/^(record \d: )?the text (after this record )?is not valid JSON \(/);
    const items: FeedItem[] = [];
    await expect(
      (async () => {
        for await (const item of readJsonRecords(pieces(`{"data":[${'{"x":1},'.repeat(5000)}{"x":}]}`, 512), 'data')) items.push(item);
      })(),
    ).rejects.toThrow(/^record \d+: the text after this record is not valid JSON/);
    expect(items.length).toBeGreaterThan(0);
  });
});

describe('readDelimited', () => {
  const layout = (change: Partial<DelimitedLayout>): DelimitedLayout => ({ delimiter: ',', quote: '"', header: true, skipLines: 0, encoding: 'utf-8', htmlEntities: false, ...change });

  it('reads a file without a header by its column list, ignoring a trailing delimiter and allowing short rows', async () => {
    const text = 'a.com;1;2;$US;\nb.com;1;2;EUR\nc.com;1\nd.com;1;2;3;4;5\n';
    expect(await collect(readDelimited(Readable.from([text]), layout({ delimiter: ';', header: false, columns: ['domain', null, 'end', 'currency'], quote: null })))).toEqual([
      { line: 1, record: { domain: 'a.com', end: '2', currency: '$US' } },
      { line: 2, record: { domain: 'b.com', end: '2', currency: 'EUR' } },
      { line: 3, record: { domain: 'c.com' } },
      { line: 4, error: 'wrong column count: expected 4, got 6' },
    ]);
  });

  it('trims header names, skips leading lines and counts lines from the top of the file', async () => {
    const text = 'exported 2026-11-24\n\nDomain, Bid Price,Bids\nx.com,$5,1\n"multi\nline.com",$6,2\n';
    expect(await collect(readDelimited(Readable.from([text]), layout({ skipLines: 2 })))).toEqual([
      { line: 4, record: { Domain: 'x.com', 'Bid Price': '$5', Bids: '1' } },
      { line: 5, record: { Domain: 'multi\nline.com', 'Bid Price': '$6', Bids: '2' } },
    ]);
  });

  it('decodes ISO-8859-1 and windows-1252, and HTML references split across chunks', async () => {
    const latin1 = Buffer.from('müller.de;&#163;;99\ncafé.fr;&#8364;;5\n', 'latin1');
    const columns = ['domain', 'currency', 'price'];
    for (const size of [1, 3, 100]) {
      expect(await collect(readDelimited(pieces(latin1, size), layout({ delimiter: ';', header: false, columns, encoding: 'iso-8859-1', htmlEntities: true })))).toEqual([
        { line: 1, record: { domain: 'müller.de', currency: '£', price: '99' } },
        { line: 2, record: { domain: 'café.fr', currency: '€', price: '5' } },
      ]);
    }
    const cp1252 = Buffer.from([0x80, 0x3b, 0x61, 0x0a]); // "€;a" in windows-1252
    expect(await collect(readDelimited(Readable.from([cp1252]), layout({ delimiter: ';', header: false, columns: ['sign', 'x'], encoding: 'windows-1252' })))).toEqual([
      { line: 1, record: { sign: '€', x: 'a' } },
    ]);
  });

  it('decodes UTF-8 characters split across chunks when it also decodes HTML references', async () => {
    const utf8 = Buffer.from('zürich.ch;&#163;;1\nbücher.de;€;2\n', 'utf8');
    for (const size of [1, 2, 3, 5]) {
      expect(await collect(readDelimited(pieces(utf8, size), layout({ delimiter: ';', header: false, columns: ['domain', 'currency', 'price'], htmlEntities: true })))).toEqual([
        { line: 1, record: { domain: 'zürich.ch', currency: '£', price: '1' } },
        { line: 2, record: { domain: 'bücher.de', currency: '€', price: '2' } },
      ]);
    }
  });

  it('hands the header to onHeader before the first record, so a check can stop the read', async () => {
    const seen: string[][] = [];
    const items = readDelimited(Readable.from(['a, b\n1,2\n']), layout({ onHeader: (columns) => void seen.push([...columns]) }));
    expect(await collect(items)).toEqual([{ line: 2, record: { a: '1', b: '2' } }]);
    expect(seen).toEqual([['a', 'b']]);
  });
});

describe('compression', () => {
  it.each([
    [[0x1f, 0x8b, 8, 0], 'gzip'],
    [[0x50, 0x4b, 3, 4], 'zip'],
    [[0x50, 0x4b, 5, 6], 'zip'],
    [[0x7b, 0x22, 0x61, 0x22], 'none'],
    [[0x50, 0x4b], 'none'],
    [[], 'none'],
  ])('recognises %j as %s', (bytes, compression) => {
    expect(sniffCompression(Uint8Array.from(bytes))).toBe(compression);
  });

  it('streams gzip, and refuses corrupt gzip data as unreadable', async () => {
    const text = '{"a":1}\n{"a":2}\n';
    const chunks: Buffer[] = [];
    for await (const chunk of gunzip(pieces(gzipSync(text), 5)) as AsyncIterable<Buffer>) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe(text);
    const corrupt = gzipSync(text);
    corrupt[12] = corrupt[12]! ^ 0xff;
    await expect(collect(readJsonRecords(gunzip(Readable.from([corrupt])), ''))).rejects.toBeInstanceOf(FeedSyntaxError);
  });

  it('reads the one entry of a zip written with data descriptors, and of a zip64 archive', async () => {
    const content = Buffer.from(JSON.stringify({ meta: {}, data: Array.from({ length: 500 }, (_, i) => ({ i })) }));
    for (const zip64 of [false, true]) {
      const path = await zipOf('all_listings.json', content, { zip64 });
      const bytes = readFileSync(path);
      // general purpose bit 3: sizes and CRC follow the data in a descriptor
      expect(bytes.readUInt16LE(6) & 0x08).toBe(0x08);
      if (zip64) expect(bytes.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true);
      const items = await collect(readJsonRecords(await openZipEntry(path), 'data'));
      expect(items).toHaveLength(500);
      expect(items.at(-1)).toEqual({ line: 500, record: { i: 499 } });
    }
  });

  it('refuses a zip of several files, and a file that is not a zip', async () => {
    await expect(openZipEntry(await zipOf('x.json', Buffer.from('[]'), { entries: 2 }))).rejects.toThrow(
      new FeedFormatError('the zip archive holds 2 files (x.json, 1-x.json); a feed archive holds exactly one'),
    );
    const notZip = join(dir, 'not.zip');
    writeFileSync(notZip, 'PK\u0003\u0004 but nothing else');
    await expect(openZipEntry(notZip)).rejects.toBeInstanceOf(FeedSyntaxError);
  });
});

describe('readProfileFeed', () => {
  const profile = feedProfileSchema.parse({
    container: { type: 'delimited', header: true },
    status: { constant: 'auction' },
    fields: { domain_name: 'name', current_bid: 'price', seoa_dr: { from: 'dr', optional: true } },
  });
  const now = new Date('2026-11-24T00:00:00Z');

  it('maps records and passes bad rows through with their lines', async () => {
    const items = readProfileFeed(Readable.from(['name,price,extra\nA.com,$5,x\nb.com,five,y\nc.com,1\n']), profile, { now });
    expect(await collect(items)).toEqual([
      { line: 2, record: { domain_name: 'a.com', status: 'auction', current_bid: 5, seoa_dr: null } },
      { line: 3, error: 'current_bid (price): not a money amount "five"' },
      { line: 4, error: 'wrong column count: expected 3, got 2' },
    ]);
  });

  it('refuses a header without a column the profile reads, before any record', async () => {
    await expect(collect(readProfileFeed(Readable.from(['name,currentPrice\na.com,5\n']), profile, { now }))).rejects.toThrow(
      new FeedFormatError('the header has no column "price" (renamed?); it has: name, currentPrice'),
    );
  });

  it('refuses JSON records that never carry a field the profile reads', async () => {
    const json = feedProfileSchema.parse({ ...profile, container: { type: 'json', records: '' } });
    const items = readProfileFeed(Readable.from(['[{"name":"a.com","cost":5},{"name":"b.com"}]']), json, { now });
    await expect(collect(items)).rejects.toThrow(
      new FeedFormatError('"price" is in no record (renamed?); a field the feed may leave out is marked "optional" in the profile'),
    );
    expect(await collect(readProfileFeed(Readable.from(['[{"name":"a.com","price":null},{"name":"b.com"}]']), json, { now }))).toHaveLength(2);
  });
});
