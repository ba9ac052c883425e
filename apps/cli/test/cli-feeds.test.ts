import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { openDatabase } from '@domain-index/db';
import { migratedPgliteDataDir } from '@domain-index/db/pglite-templates';
import { parseSources } from '@domain-index/indexer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '@domain-index/runtime/clock';
import { syncSource } from '@domain-index/worker/indexing/sync-source';
import { createLogger } from '@domain-index/runtime/logger';
import { startFeedServer, type FeedServer } from '@domain-index/test-support/feed-server';
import { runCli } from './support/run-cli';

const dir = mkdtempSync(join(tmpdir(), 'di-cli-feeds-'));
const env = { DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'info' };
const servers: FeedServer[] = [];

const DYNADOT = [
  'Domain,Bid Price,Bid Price Currency,Bids,End Time,End Timestamp,Links,Age, Appraisal, Appraisal Currency',
  'example-auction.com,$101,USD,4,2026/10/11 22:17 PST,1791785820000,19,12,"$1,200",USD',
  'broken.com,lots,USD,1,2026/10/11 22:17 PST,-,3,1,-,-',
  'nobids.net,$25,USD,0,2026/10/12 09:05 PST,-,0,--,-,-',
].join('\n');

const ROW = {
  domain_name: 'example-auction.com',
  status: 'auction',
  current_bid: 101,
  start_price: null,
  buy_now_price: null,
  bid_count: 4,
  auction_end_time: '2026-10-12T06:17:00.000Z',
  auction_type: 'expired',
  marketplace_url: 'https://www.dynadot.com/market/auction/example-auction.com',
  extensions_taken: null,
  domain_age: 12,
  valuation: 1200,
  spam_risk: null,
  seoa_dr: null,
  seoa_backlinks: 19,
  seob_tf: null,
  seob_cf: null,
  seob_backlinks: null,
  seoc_authority: null,
  seoc_backlinks: null,
  keyword_search_volume: null,
  open_rank: null,
  rankinga_ranking: null,
  rankingb_ranking: null,
  last_sold_price: null,
  last_sold_year: null,
};

describe('domain-index feeds check, and profiles in the sources file', () => {
  // a migrated database, as the first command leaves one (cli-keys.test.ts starts from nothing)
  beforeAll(() => migratedPgliteDataDir(env.DATA_DIR));
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('checks a file with a shipped profile: counts, bad records with their numbers and reasons, sample rows; --json as one object', async () => {
    const file = join(dir, 'auctions.csv');
    writeFileSync(file, `${DYNADOT}\n`);
    const text = await runCli(['feeds', 'check', '--profile', 'dynadot-auctions', '--sample', '1', file], env);
    expect(text.stderr).toBe('');
    expect(text.stdout).toBe(
      [
        'good: 2',
        'bad: 1',
        'skipped: 0',
        'bad records (the first 20):',
        '  record 3: current_bid (Bid Price): not a money amount "lots"',
        'rows (1 of 2):',
        `  ${JSON.stringify(ROW)}`,
        'an import would REJECT this feed and keep the previous batch',
        '',
      ].join('\n'),
    );
    expect(text.status).toBe(1);

    const json = await runCli(['feeds', 'check', '--profile', 'dynadot-auctions', '--json', file], env);
    expect(json.status).toBe(1);
    const parsed = JSON.parse(json.stdout) as { rows: unknown[] };
    expect(Object.keys(parsed)).toEqual(['good', 'bad', 'skipped', 'errors', 'rows']);
    expect(parsed).toMatchObject({ good: 2, bad: 1, skipped: 0, errors: [{ record: 3, reason: 'current_bid (Bid Price): not a money amount "lots"' }] });
    expect(parsed.rows).toEqual([ROW, { ...ROW, domain_name: 'nobids.net', current_bid: 25, bid_count: 0, auction_end_time: '2026-10-12T16:05:00.000Z', marketplace_url: 'https://www.dynadot.com/market/auction/nobids.net', domain_age: null, valuation: null, seoa_backlinks: 0 }]);
  });

  it('fetches a configured source to check it, with secrets from the environment that appear in no output', async () => {
    const KEY = 'sk-cli-5b1d9e0c77a4';
    let calls = 0;
    const server = await startFeedServer((request) => {
      calls += 1;
      if (request.headers.authorization !== `Bearer ${KEY}`) return { status: 401, body: `no; expected Bearer ${KEY}` };
      return { status: 200, body: `${DYNADOT.split('\n').filter((line) => !line.startsWith('broken')).join('\n')}\n`, headers: { etag: '"x"' } };
    }, '/market/auction/auctions.csv');
    servers.push(server);
    const sourcesFile = join(dir, 'sources.json');
    writeFileSync(sourcesFile, JSON.stringify([{ id: 'dynadot', name: 'Dynadot', everyMinutes: 60, feed: server.url, profile: 'dynadot-auctions', headers: { Authorization: 'env:DI_CLI_AUTH' }, query: { key: 'env:DI_CLI_KEY' } }]));
    const run = await runCli(['feeds', 'check', 'dynadot', '--json', '--sample', '0'], { ...env, SOURCES_FILE: sourcesFile, DI_CLI_AUTH: `Bearer ${KEY}`, DI_CLI_KEY: KEY });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ good: 2, bad: 0, skipped: 0, errors: [], rows: [] });
    expect(`${run.stdout}${run.stderr}`).not.toContain(KEY);

    const refused = await runCli(['feeds', 'check', 'dynadot'], { ...env, SOURCES_FILE: sourcesFile, DI_CLI_AUTH: 'Bearer wrong', DI_CLI_KEY: KEY });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain(`  feed: fetching ${server.url} answered HTTP 401\n`);
    expect(`${refused.stdout}${refused.stderr}`).not.toContain(KEY);
    expect(calls).toBe(2);

    // the listing of sources shows neither headers nor query values
    const listed = await runCli(['sources'], { ...env, SOURCES_FILE: sourcesFile, DI_CLI_AUTH: `Bearer ${KEY}`, DI_CLI_KEY: KEY });
    expect(listed.stdout).toMatch(/^dynadot\s+Dynadot\s+1h\s+dynadot-auctions\s+never\s+0\s+now\s+http:\/\/127\.0\.0\.1:\d+\/market\/auction\/auctions\.csv\s+-\n$/m);
    expect(listed.stdout).not.toContain(KEY);
  });

  it('shows a feed skipped as unchanged in domain-index sources', async () => {
    const server = await startFeedServer((request) =>
      request.headers['if-none-match'] === '"v1"' ? { status: 304, body: '' } : { status: 200, body: `${DYNADOT.split('\n').filter((line) => !line.startsWith('broken')).join('\n')}\n`, headers: { etag: '"v1"' } },
    );
    servers.push(server);
    const entries = [{ id: 'dynadot', name: 'Dynadot', everyMinutes: 60, feed: server.url, profile: 'dynadot-auctions' }];
    const sourcesFile = join(dir, 'unchanged-sources.json');
    writeFileSync(sourcesFile, JSON.stringify(entries));
    const parsed = parseSources(JSON.stringify(entries));
    if (!parsed.ok) throw new Error(parsed.reason);
    const dataDir = join(dir, 'unchanged-data');
    await migratedPgliteDataDir(dataDir);
    const database = await openDatabase({ dataDir });
    try {
      const logger = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));
      const options = { database, clock: systemClock, logger, maxAttempts: 1 };
      expect(await syncSource(parsed.sources[0]!, options)).toMatchObject({ status: 'applied' });
      expect(await syncSource(parsed.sources[0]!, options)).toMatchObject({ status: 'unchanged' });
    } finally {
      await database.close();
    }
    const listed = await runCli(['sources'], { ...env, DATA_DIR: dataDir, SOURCES_FILE: sourcesFile });
    expect(listed.stdout).toMatch(/^dynadot\s+Dynadot\s+1h\s+dynadot-auctions\s+unchanged 20\d\d-\d\d-\d\dT[\d:]+Z\s+0\s+20\d\d-\d\d-\d\dT[\d:]+Z\s+http:\S+\s+-\n/m);
  });

  it('refuses to start with a mistake in a profile, in one line naming the source and the field', async () => {
    const sourcesFile = join(dir, 'bad-sources.json');
    const profile = { container: { type: 'json', records: 'data' }, status: { constant: 'auction' }, fields: { domain_name: 'name', auction_end_time: { from: 'end', format: 'yyyy-MM-dd HH:mm QQQ' } } };
    writeFileSync(sourcesFile, JSON.stringify([{ id: 'mine', name: 'Mine', everyMinutes: 60, feed: 'https://mine.example/feed.json', profile }]));
    const serve = await runCli(['serve'], { ...env, SOURCES_FILE: sourcesFile, PORT: '0' });
    expect(serve.status).toBe(2);
    expect(serve.stderr).toBe(
      `domain-index: invalid environment variable SOURCES_FILE: ${sourcesFile}: source "mine": profile.fields.auction_end_time.format: unknown letters "QQQ" in pattern "yyyy-MM-dd HH:mm QQQ"\n`,
    );
  });
});
