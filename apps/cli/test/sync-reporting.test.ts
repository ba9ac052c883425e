import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, postgresTestEngine, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auctionRecord } from '@domain-index/test-support/feeds';
import { startFeedServer, type FeedServer } from '@domain-index/test-support/feed-server';
import { startCommand } from './support/processes';
import { freePort, until } from '@domain-index/test-support/waiting';
import { parseExposition, total } from './support/prometheus';
import { runCli } from './support/run-cli';

const SECRET = 'feed-key-0f3a9c41d2';

interface SourceCheck {
  status: string;
  output: string;
  lastOutcome?: string;
  lastSyncAt?: string;
  lastError?: string;
  consecutiveFailures: number;
  nextSyncDue: string;
}

/** An instant as `domain-index sources` shows it, to the second. */
const toSecond = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z');

describe.skipIf(postgresTestEngine().skip)('a failed source, as sources, /health and the metrics report it', () => {
  let test: TestDatabase;
  let good: FeedServer;
  let gone: FeedServer;
  const dir = mkdtempSync(join(tmpdir(), 'di-sync-report-'));
  const sourcesFile = join(dir, 'sources.json');
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    good = await startFeedServer([{ status: 200, body: `${JSON.stringify(auctionRecord('kept.com'))}\n` }]);
    // a feed behind a key that the marketplace no longer serves: 404 is not retried
    gone = await startFeedServer([{ status: 404, body: 'no such feed' }]);
    writeFileSync(sourcesFile, JSON.stringify([
      { id: 'loop', name: 'Loopback', everyMinutes: 60, feed: good.url, format: 'jsonl' },
      { id: 'gone', name: 'Gone', everyMinutes: 90, feed: gone.url, format: 'jsonl', query: { key: 'env:GONE_FEED_KEY' } },
    ]));
  });
  afterAll(async () => {
    await Promise.all([good.close(), gone.close()]);
    await test.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows its error (never a secret), its failures in a row and its next due time everywhere alike', { timeout: 240_000 }, async () => {
    const env = { DATABASE_URL: test.url!, SOURCES_FILE: sourcesFile, GONE_FEED_KEY: SECRET, LOG_LEVEL: 'warn' };
    const adminPort = await freePort();
    const admin = `http://127.0.0.1:${adminPort}`;
    const worker = startCommand(['sync'], { ...env, ADMIN_PORT: String(adminPort) });
    let check: SourceCheck | undefined;
    try {
      let healthText = '';
      await until('both sources have synced', async () => {
        if (worker.child.exitCode !== null) throw new Error(`sync exited early:\n${worker.output()}`);
        const response = await fetch(`${admin}/health`).catch(() => undefined);
        if (response === undefined) return false;
        healthText = await response.text();
        const checks = (JSON.parse(healthText) as { checks: Record<string, SourceCheck[]> }).checks;
        check = checks['sync:gone']?.[0];
        return check?.lastOutcome === 'failed' && checks['sync:loop']?.[0]?.lastOutcome === 'applied';
      }, 30_000);
      expect(gone.received[0]!.url).toContain(SECRET);
      expect(healthText).not.toContain(SECRET);
      const lastError = `fetching ${gone.url} answered HTTP 404`;
      expect(check).toEqual({
        componentType: 'component',
        status: 'warn',
        output: `never synced successfully; the last sync failed: ${lastError} (once); no batch of it has been applied`,
        lastOutcome: 'failed',
        lastSyncAt: expect.stringMatching(/^20\d\d-/) as unknown,
        lastError,
        consecutiveFailures: 1,
        // a first failure is tried again a minute later, not at the 90-minute interval
        nextSyncDue: new Date(Date.parse(check!.lastSyncAt!) + 60_000).toISOString(),
        time: expect.any(String) as unknown,
      });

      let text = '';
      await until('the metrics have read the failure', async () => {
        text = await (await fetch(`${admin}/metrics`)).text();
        return total(parseExposition(text), 'domain_index_sync_consecutive_failures', { source: 'gone' }) === 1;
      }, 30_000);
      expect(text).not.toContain(SECRET);
      const series = parseExposition(text);
      const outcomes = (source: string) =>
        Object.fromEntries(['applied', 'unchanged', 'rejected', 'failed'].map((outcome) => [outcome, total(series, 'domain_index_sync_last_outcome', { source, outcome })]));
      expect(outcomes('gone')).toEqual({ applied: 0, unchanged: 0, rejected: 0, failed: 1 });
      expect(outcomes('loop')).toEqual({ applied: 1, unchanged: 0, rejected: 0, failed: 0 });
      expect(total(series, 'domain_index_sync_consecutive_failures', { source: 'loop' })).toBe(0);
      expect(total(series, 'domain_index_sync_next_due_timestamp_seconds', { source: 'gone' })).toBeCloseTo(Date.parse(check!.nextSyncDue) / 1000, 3);
      expect(series.some((s) => s.name === 'domain_index_sync_last_success_timestamp_seconds' && s.labels.source === 'gone')).toBe(false);

      worker.child.kill('SIGTERM');
      expect(await Promise.race([worker.exited, sleep(15_000, 'still running' as const)])).toBe(0);
    } finally {
      worker.child.kill('SIGKILL');
    }

    const listed = await runCli(['sources'], env);
    expect(listed.status).toBe(0);
    expect(listed.stdout).not.toContain(SECRET);
    const row = listed.stdout.split('\n').find((line) => line.startsWith('gone '))!.split(/ {2,}/);
    expect(row).toEqual(['gone', 'Gone', '90m', 'jsonl', `failed ${toSecond(check!.lastSyncAt!)}`, '1', toSecond(check!.nextSyncDue), gone.url, check!.lastError]);
  });
});
