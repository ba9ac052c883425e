import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApi } from './support/fixture-api';
import { runCli } from './support/run-cli';
import { walk } from './support/search-client';
import type { RunningApi } from '@domain-index/api/test/support/start-api';

describe('domain-index export', () => {
  let api: RunningApi;
  let dir: string;
  beforeAll(async () => {
    ({ api } = await startFixtureApi('pglite'));
    dir = mkdtempSync(join(tmpdir(), 'di-export-'));
  });
  afterAll(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const env = () => ({ DOMAIN_INDEX_URL: api.baseUrl, DOMAIN_INDEX_API_KEY: api.apiKey });

  it('writes the export of a query to a file, the bytes the API streams', async () => {
    const file = join(dir, 'com.csv');
    const run = await runCli(['export', '--format', 'csv', '--query', 'status=all&tld=com', '--output', file], env());
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const api_ = await api.get('/api/v1/exports/domains?status=all&tld=com&format=csv');
    expect(readFileSync(file, 'utf8')).toBe(await api_.text());
  });

  it('writes JSON lines to stdout, one per row of the search', async () => {
    const run = await runCli(['export', '--format', 'jsonl', '--query', 'status=all&sort=domain_name'], env());
    expect(run.status).toBe(0);
    const { rows } = await walk(api, { status: 'all', sort: 'domain_name', limit: '200' });
    expect(run.stdout.split('\n').slice(0, -1).map((line) => JSON.parse(line) as unknown)).toEqual(rows);
  });

  it('says what was refused, and needs the address and a key', async () => {
    const bad = await runCli(['export', '--query', 'limit=10'], env());
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/the export was refused: .*limit/);
    const missing = await runCli(['export'], {});
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/DOMAIN_INDEX_URL and DOMAIN_INDEX_API_KEY/);
  });
});
