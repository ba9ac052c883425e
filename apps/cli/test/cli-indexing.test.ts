import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migratedPgliteDataDir } from '@domain-index/db/pglite-templates';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auctionRecord } from '@domain-index/test-support/feeds';
import { runCli } from './support/run-cli';

const dir = mkdtempSync(join(tmpdir(), 'di-cli-'));
const env = { DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent' };
const feed = (name: string, lines: string[]) => {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};

/** `domain-index sources` as rows by source id, each a map from column title to cell. */
async function sourcesTable(): Promise<Map<string, Record<string, string>>> {
  const run = await runCli(['sources'], env);
  expect(run.status).toBe(0);
  const [header, ...lines] = run.stdout.trimEnd().split('\n').map((line) => line.split(/ {2,}/));
  expect(header).toEqual(['ID', 'NAME', 'EVERY', 'FORMAT', 'LAST SYNC', 'FAILURES', 'NEXT DUE', 'FEED', 'LAST ERROR']);
  return new Map(lines.map((cells) => [cells[0]!, Object.fromEntries(header!.map((title, column) => [title, cells[column] ?? '']))]));
}

describe('domain-index import, purge and sources (embedded database)', () => {
  // a migrated database, as the first command leaves one (cli-keys.test.ts starts from nothing)
  beforeAll(() => migratedPgliteDataDir(env.DATA_DIR));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports a feed file and prints the summary on stdout', async () => {
    const path = feed('good.jsonl', [
      JSON.stringify(auctionRecord('first.com')),
      JSON.stringify(auctionRecord('second.com')),
    ]);
    const run = await runCli(['import', '--source', 'bidhaus', path], env);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^bidhaus: applied: read 2, inserted 2, updated 0, unchanged 0, removed 0, rejected 0, \d+\.\d\d s\n$/);
  });

  it('reads stdin with -, reports bad lines with their line numbers on stderr', async () => {
    const lines = [
      ...Array.from({ length: 25 }, (_, i) => JSON.stringify(auctionRecord(`row${i}.com`))),
      '{not json',
    ];
    const run = await runCli(['import', '--source', 'bidhaus', '-'], env, `${lines.join('\n')}\n`);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('line 26: invalid JSON');
    expect(run.stdout).toMatch(/read 26, inserted 25, updated 0, unchanged 0, removed 2, rejected 1/);
  });

  it('exits 1 and keeps the previous batch when too many rows are bad', async () => {
    const path = feed('bad.jsonl', ['{"domain_name":"x.com","status":"sold"}', JSON.stringify(auctionRecord('only.com'))]);
    const run = await runCli(['import', '--source', 'bidhaus', path], env);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^bidhaus: REJECTED, previous batch kept: 1 of 2 rows \(50\.0%\) are bad/);
    const sources = await runCli(['sources'], env);
    expect(sources.stdout).toMatch(/bidhaus\s+BidHaus Auctions\s+1h\s+jsonl\s+rejected 20\d\d-/);
  });

  it("lists a rejected source's error, its failures in a row and when it is due next, until a batch applies", async () => {
    const bad = feed('bad-again.jsonl', ['{"domain_name":"y.com","status":"sold"}', JSON.stringify(auctionRecord('only.com'))]);
    expect((await runCli(['import', '--source', 'bidhaus', bad], env)).status).toBe(1);
    const rejected = await sourcesTable();
    const bidhaus = rejected.get('bidhaus')!;
    const finished = /^rejected (\S+)$/.exec(bidhaus['LAST SYNC']!)?.[1];
    expect(finished).toMatch(/^20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(bidhaus).toMatchObject({ FAILURES: '2', 'NEXT DUE': new Date(Date.parse(finished!) + 3_600_000).toISOString().replace('.000Z', 'Z') });
    expect(bidhaus['LAST ERROR']).toMatch(/^1 of 2 rows \(50\.0%\) are bad/);
    // the other sources never synced: due at once, nothing failed
    expect(rejected.get('droplane')).toMatchObject({ 'LAST SYNC': 'never', FAILURES: '0', 'NEXT DUE': 'now', 'LAST ERROR': '-' });

    const good = feed('good-again.jsonl', [JSON.stringify(auctionRecord('first.com'))]);
    expect((await runCli(['import', '--source', 'bidhaus', good], env)).status).toBe(0);
    expect((await sourcesTable()).get('bidhaus')).toMatchObject({ FAILURES: '0', 'LAST ERROR': '-' });
  });

  it('answers an unknown source or a missing file with one line and exit code 2', async () => {
    const unknown = await runCli(['import', '--source', 'nowhere', '-'], env);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toBe('domain-index: unknown source nowhere; configured: bidhaus, droplane, namemarket, expirex, brandbay\n');
    const missing = await runCli(['import', '--source', 'bidhaus', join(dir, 'nope.jsonl')], env);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe(`domain-index: cannot read ${join(dir, 'nope.jsonl')}: no such file\n`);
  });

  it('purges with the configured retention', async () => {
    const run = await runCli(['purge'], { ...env, RETENTION_DAYS: '3' });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('purged 0 listings ended more than 3 days ago\n');
  });
});
