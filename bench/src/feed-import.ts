// The marketplace-feed import, measured: a 1,000,000-record feed in GoDaddy's shape (one JSON
// document {"meta":..,"data":[..]} in a zip with a data descriptor), imported through the
// godaddy-auctions profile, next to the very same listings as a JSONL feed in our own field
// names, in alternating rounds of one run; and the zip at 250,000 records, to show peak memory
// flat in the feed's size. Run: pnpm --filter @domain-index/bench feeds
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { openDatabase, sql } from '@domain-index/db';
import { seedRecords } from '@domain-index/indexer';
import yazl from 'yazl';
import { measureImport, type ImportResult } from './import-bench';

const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = process.env.BENCH_DATABASE ?? 'di_bench_feeds';
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SMALL_ROWS = Math.round(ROWS / 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const url = (() => {
  const target = new URL(ADMIN_URL);
  target.pathname = `/${DATABASE}`;
  return target.toString();
})();

const money = (amount: unknown) => (typeof amount === 'number' ? `$${amount.toLocaleString('en-US', { maximumFractionDigits: 2 })}` : null);

/** One seeded listing as GoDaddy writes it, and as our JSONL feed says the same. */
function shapes(record: Record<string, unknown>): { godaddy: Record<string, unknown>; ours: Record<string, unknown> } {
  const buyNow = record.status === 'available';
  const name = String(record.domain_name);
  const link = `https://www.godaddy.com/domain-auctions/${name.replaceAll('.', '-')}`;
  const godaddy: Record<string, unknown> = {
    domainName: name.toUpperCase(),
    link,
    auctionType: buyNow ? 'BuyNow' : 'Bid',
    auctionEndTime: record.auction_end_time,
    price: money(record.current_bid),
    numberOfBids: buyNow ? undefined : record.bid_count,
    domainAge: record.domain_age,
    pageviews: 0,
    valuation: money(record.valuation),
    isAdult: false,
    majesticTf: record.seob_tf,
    majesticCf: record.seob_cf,
    majesticBacklinks: record.seob_backlinks,
    semrushAs: record.seoc_authority,
    semrushBacklinks: record.seoc_backlinks,
  };
  const ours = {
    domain_name: name,
    status: buyNow ? 'available' : 'auction',
    current_bid: record.current_bid,
    buy_now_price: buyNow ? record.current_bid : null,
    bid_count: buyNow ? null : record.bid_count,
    auction_end_time: record.auction_end_time,
    auction_type: buyNow ? 'buy_now' : 'auction',
    marketplace_url: link,
    domain_age: record.domain_age,
    valuation: record.valuation,
    seob_tf: record.seob_tf,
    seob_cf: record.seob_cf,
    seob_backlinks: record.seob_backlinks,
    seoc_authority: record.seoc_authority,
    seoc_backlinks: record.seoc_backlinks,
  };
  return { godaddy, ours };
}

/** Writes the GoDaddy zip (streamed into yazl: a data descriptor) and the JSONL twin. */
async function writeFeeds(rows: number, zipPath: string, jsonlPath: string | undefined): Promise<{ json: number }> {
  const zip = new yazl.ZipFile();
  const json = new PassThrough();
  zip.addReadStream(json, 'all_listings.json');
  zip.end();
  const zipped = pipeline(zip.outputStream, createWriteStream(zipPath));
  const jsonl = jsonlPath === undefined ? undefined : createWriteStream(jsonlPath);
  let jsonBytes = 0;
  const write = async (stream: NodeJS.WritableStream, text: string) => {
    if (!stream.write(text)) await once(stream, 'drain');
  };
  const header = `{"meta":{"generated":"${new Date().toISOString()}","count":${rows}},"data":[`;
  jsonBytes += header.length;
  await write(json, header);
  let first = true;
  for (const { record } of seedRecords({ rows, seed: 7, sources: ['godaddy'], now: new Date() })) {
    // GoDaddy lists auctions and buy-now names; drops are not in its inventory files
    if (record.status === 'dropping') record.status = 'auction';
    const { godaddy, ours } = shapes(record);
    const text = `${first ? '' : ','}${JSON.stringify(godaddy)}`;
    first = false;
    jsonBytes += Buffer.byteLength(text);
    await write(json, text);
    if (jsonl !== undefined) await write(jsonl, `${JSON.stringify(ours)}\n`);
  }
  json.end(']}');
  jsonBytes += 2;
  jsonl?.end();
  await Promise.all([zipped, jsonl === undefined ? undefined : once(jsonl, 'finish')]);
  return { json: jsonBytes };
}

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

const dir = mkdtempSync(join(tmpdir(), 'di-bench-feeds-'));
try {
  const zipPath = join(dir, 'all_listings.json.zip');
  const jsonlPath = join(dir, 'same-rows.jsonl');
  const smallZipPath = join(dir, 'small.json.zip');
  const sourcesFile = join(dir, 'sources.json');
  writeFileSync(
    sourcesFile,
    JSON.stringify([
      { id: 'godaddy', name: 'GoDaddy Auctions', everyMinutes: 1440, feed: zipPath, profile: 'godaddy-auctions' },
      { id: 'godaddy-jsonl', name: 'the same rows as JSONL', everyMinutes: 1440, feed: jsonlPath, format: 'jsonl' },
    ]),
  );
  const env = { SOURCES_FILE: sourcesFile };
  console.log(`writing ${ROWS} records in GoDaddy's shape (zip) and as JSONL...`);
  const { json } = await writeFeeds(ROWS, zipPath, jsonlPath);
  await writeFeeds(SMALL_ROWS, smallZipPath, undefined);
  const sizes = { zipMiB: mib(statSync(zipPath).size), jsonMiB: mib(json), jsonlMiB: mib(statSync(jsonlPath).size), smallZipMiB: mib(statSync(smallZipPath).size) };
  console.log(sizes);

  const runs: { round: number; feed: string; rows: number; result: ImportResult }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [feed, file, source] of [
      ['zip', zipPath, 'godaddy'],
      ['jsonl', jsonlPath, 'godaddy-jsonl'],
    ] as const) {
      const result = await measureImport(ADMIN_URL, url, file, ROWS, true, { source, env });
      runs.push({ round, feed, rows: ROWS, result });
      console.log(round, feed, result);
    }
  }
  const small = await measureImport(ADMIN_URL, url, smallZipPath, SMALL_ROWS, true, { source: 'godaddy', env });
  runs.push({ round: 1, feed: 'zip', rows: SMALL_ROWS, result: small });
  console.log('small zip', small);

  const database = await openDatabase({ databaseUrl: url, maxConnections: 1 });
  const [count] = await database.rows<{ n: number }>(sql`select count(*)::int as n from listings`);
  await database.close();
  console.log(`listings after the last import: ${count?.n}`);

  const result = { date: new Date().toISOString(), node: process.version, rows: ROWS, sizes, runs };
  writeFileSync(new URL('../results/feed-import.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  console.log('\n| feed | round | rows | seconds | rows/s | peak RSS |\n|---|---|---|---|---|---|');
  for (const run of runs) {
    console.log(`| ${run.feed} | ${run.round} | ${run.rows.toLocaleString('en-US')} | ${run.result.seconds} | ${run.result.rowsPerSecond.toLocaleString('en-US')} | ${run.result.peakRssMiB} MiB |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  const admin = await openDatabase({ databaseUrl: ADMIN_URL, maxConnections: 1 });
  await admin.rows(sql.raw(`drop database if exists "${DATABASE}" with (force)`));
  await admin.close();
}
