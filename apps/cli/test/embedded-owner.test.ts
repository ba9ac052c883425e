import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migratedPgliteDataDir } from '@domain-index/db/pglite-templates';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '@domain-index/test-support/feed-server';
import { startServe, type ServeProcess } from './support/processes';
import { freePort, until } from '@domain-index/test-support/waiting';
import { runCli } from './support/run-cli';

/**
 * The embedded database is one process's (issue: two processes that opened one PGlite directory
 * lost each other's writes and once left it unreadable). While `serve` runs, the other commands
 * run inside it through its control socket; what cannot is refused in one line.
 */
const cli = fileURLToPath(new URL('../bin/domain-index.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'di-owner-'));
const dataDir = join(dir, 'data');
const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn' };

interface Listing {
  domain_name: string;
  current_bid: number | null;
  source: string;
}

describe('one owner of the embedded database', () => {
  let serve: ServeProcess;
  let port: number;
  let key: string;
  let feed: FeedServer;

  const start = async (): Promise<ServeProcess> => {
    port = await freePort();
    const started = startServe({ ...env, PORT: String(port), ADMIN_PORT: '0', SOURCES_FILE: join(dir, 'sources.json') });
    try {
      await until('serve listens', async () => {
        try {
          return (await fetch(`http://127.0.0.1:${port}/api/v1/stats`)).status === 401;
        } catch {
          return false;
        }
      }, 180_000);
      // the control socket is announced once the server listens
      await until('the control socket is announced', () => lock()?.control != null, 10_000);
    } catch (error) {
      // a server that did not come up is not left running after the suite
      started.child.kill('SIGKILL');
      throw new Error(`${(error as Error).message}; serve said:\n${started.output()}`);
    }
    return started;
  };
  const lock = (): { pid: number; command: string; control: string | null } | undefined => {
    try {
      return JSON.parse(readFileSync(join(dataDir, 'domain-index.lock'), 'utf8')) as { pid: number; command: string; control: string | null };
    } catch {
      return undefined;
    }
  };
  const get = async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const lookup = async (name: string) => (await get(`/api/v1/domains/${name}`)).body.data as Listing | undefined;
  const search = async (name: string) => ((await get(`/api/v1/domains?search=${name.split('.')[0]!}&status=all&limit=200`)).body.data as Listing[]).filter((row) => row.domain_name === name);
  const stop = async (process: ServeProcess) => {
    process.child.kill('SIGTERM');
    expect(await process.exited).toBe(0);
  };

  beforeAll(async () => {
    // a configured source with a feed on loopback, synced by the embedded server itself
    feed = await startFeedServer([{ status: 200, body: `${JSON.stringify({ domain_name: 'synced-by-serve.com', status: 'auction', current_bid: 31, bid_count: 1, auction_end_time: '2031-01-01T00:00:00.000Z' })}\n` }]);
    writeFileSync(join(dir, 'sources.json'), JSON.stringify([
      { id: 'brandbay', name: 'BrandBay', everyMinutes: 720, feed: 'https://brandbay.example/feed/listings.jsonl', format: 'jsonl' },
      { id: 'loopmart', name: 'LoopMart', everyMinutes: 60, feed: feed.url, format: 'jsonl' },
    ]));
    // a first batch while no server runs: the command takes the database itself (migrated, as
    // the first command leaves one), and the index is no longer empty, so serve seeds no demo
    // data and syncs loopmart (never synced) at once
    await migratedPgliteDataDir(dataDir);
    const first = await runCli(['import', '--source', 'brandbay', '-'], env, `${JSON.stringify({ domain_name: 'first-batch.com', status: 'auction', current_bid: 12, bid_count: 1, auction_end_time: '2031-01-01T00:00:00.000Z' })}\n`);
    expect(first.status).toBe(0);
    expect(lock()).toBeUndefined();
    serve = await start();
  });
  afterAll(async () => {
    if (serve !== undefined && serve.child.exitCode === null) serve.child.kill('SIGKILL');
    await feed?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs keys create inside the running server: the key works at once and is kept after a restart', async () => {
    const created = await runCli(['keys', 'create', '--plan', 'pro', '--name', 'second process'], env);
    expect(created.status).toBe(0);
    expect(created.stderr).toMatch(/^created key_\w+ on plan pro; the key above is shown only now\n$/);
    key = created.stdout.trim();
    expect(key).toMatch(/^dix_live_\w+$/);
    expect((await get('/api/v1/stats')).status).toBe(200);
    const listed = await runCli(['keys', 'list'], env);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('second process');
  });

  it('only its owner may reach the control socket', () => {
    const control = lock()!.control!;
    expect(lock()).toMatchObject({ pid: serve.child.pid, command: 'serve' });
    expect(statSync(control).mode & 0o777).toBe(0o600);
    expect(statSync(join(control, '..')).mode & 0o777).toBe(0o700);
  });

  it('imports through the running server: the change is answered at once, by lookup and search alike, and written to the change feed', async () => {
    await until('the server has synced loopmart', async () => (await lookup('synced-by-serve.com')) !== undefined, 30_000);
    expect(await lookup('synced-by-serve.com')).toMatchObject({ source: 'loopmart', current_bid: 31 });
    expect(feed.requests).toBeGreaterThan(0);
    const file = join(dir, 'brandbay.jsonl');
    writeFileSync(file, `${JSON.stringify({ domain_name: 'owner-test.com', status: 'auction', current_bid: 40, bid_count: 1, auction_end_time: '2031-01-01T00:00:00.000Z' })}\n`);
    const first = await runCli(['import', '--source', 'brandbay', 'brandbay.jsonl'], env, undefined, dir);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^brandbay: applied: read 1, inserted 1, /);
    expect(await lookup('owner-test.com')).toMatchObject({ current_bid: 40 });
    // from stdin, a new bid
    const second = await runCli(['import', '--source', 'brandbay', '-'], env, `${JSON.stringify({ domain_name: 'owner-test.com', status: 'auction', current_bid: 55, bid_count: 2, auction_end_time: '2031-01-01T00:00:00.000Z' })}\n`);
    expect(second.status).toBe(0);
    expect(second.stdout).toMatch(/^brandbay: applied: read 1, inserted 0, updated 1, /);
    expect(await lookup('owner-test.com')).toMatchObject({ current_bid: 55 });
    expect(await search('owner-test.com')).toMatchObject([{ current_bid: 55 }]);
    const events = (await get('/api/v1/events?source=brandbay&limit=200')).body.data as { type: string; data: { object: Listing | null; previous_attributes: Record<string, unknown> | null } }[];
    const changed = events.filter((event) => event.data.object?.domain_name === 'owner-test.com').map((event) => [event.type, event.data.object?.current_bid, event.data.previous_attributes?.current_bid]);
    expect(changed).toEqual([
      ['listing.added', 40, undefined],
      ['listing.updated', 55, 40],
    ]);
    // a failure inside the server is the caller's one line and exit code
    const unknown = await runCli(['import', '--source', 'nosuch', 'brandbay.jsonl'], env, undefined, dir);
    expect(unknown).toMatchObject({ status: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/^domain-index: unknown source nosuch; configured: brandbay, loopmart\n$/);
  });

  it('refuses a second serve and migrate in one line naming the running process, and changes nothing', async () => {
    for (const command of [['serve'], ['migrate']]) {
      const refused = await runCli(command, { ...env, PORT: String(await freePort()) });
      expect(refused.status).toBe(2);
      expect(refused.stderr).toBe(`domain-index: the embedded database in ${dataDir} is in use by \`domain-index serve\` (pid ${serve.child.pid}): stop it first\n`);
    }
    expect(lock()).toMatchObject({ pid: serve.child.pid });
    expect((await get('/api/v1/stats')).status).toBe(200);
  });

  it('after a restart every listing answers lookup and search alike, and the key made through the server still works', async () => {
    await stop(serve);
    expect(lock()).toBeUndefined();
    serve = await start();
    expect(await lookup('owner-test.com')).toMatchObject({ current_bid: 55 });
    expect(await search('owner-test.com')).toMatchObject([{ current_bid: 55 }]);
    expect(await lookup('synced-by-serve.com')).toMatchObject({ current_bid: 31 });
  });

  it('refuses commands while another command holds the database, and takes over the lock of a killed process', async () => {
    await stop(serve);
    // an import reading a stdin that stays open holds the database, with no control socket
    const importing = spawn(process.execPath, [cli, 'import', '--source', 'brandbay', '-'], { env: { PATH: process.env.PATH ?? '', ...env } });
    const importExited = new Promise<number | null>((resolve) => importing.once('exit', resolve));
    await until('the import holds the database', () => lock()?.pid === importing.pid, 60_000);
    const refused = await runCli(['keys', 'list'], env);
    expect(refused).toMatchObject({ status: 2, stdout: '' });
    expect(refused.stderr).toBe(`domain-index: the embedded database in ${dataDir} is in use by \`domain-index import --source brandbay -\` (pid ${importing.pid}): wait for it to finish\n`);
    // killed while holding it: the next command takes the lock over
    importing.kill('SIGKILL');
    await importExited;
    expect(lock()?.pid).toBe(importing.pid);
    const listed = await runCli(['keys', 'list'], env);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('second process');
    expect(lock()).toBeUndefined();
    serve = await start();
    expect(await lookup('owner-test.com')).toMatchObject({ current_bid: 55 });
  });
});
