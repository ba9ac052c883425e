import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, until } from '@domain-index/test-support/waiting';

/** util-linux's `script`: runs a command on a pseudo-terminal, as a person's shell would. */
const SCRIPT = '/usr/bin/script';
const cli = fileURLToPath(new URL('../bin/domain-index.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'di-first-start-'));

/** Without the terminal's line ends and colour codes. */
// eslint-disable-next-line no-control-regex -- the terminal's colour codes
const plain = (output: string) => output.replace(/\r\n/g, '\n').replace(/\u001B\[[0-9;]*m/g, '');

/**
 * `serve` on a terminal until it has announced itself, then `whileUp` with what the terminal
 * showed and the port; returns what the terminal showed, without colours.
 */
async function serveOnTerminal(
  env: Record<string, string>,
  whileUp?: (shown: string, port: number) => Promise<void>,
): Promise<string> {
  const port = await freePort();
  const command = `exec ${process.execPath} ${cli} serve`;
  const child = spawn(SCRIPT, ['-qefc', command, '/dev/null'], {
    detached: true,
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: join(dir, 'data'),
      PORT: String(port),
      SHUTDOWN_DELAY_MS: '0',
      TERM: 'xterm',
      ...env,
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await until(
      'it has announced itself and logged that it listens',
      () =>
        output.includes('Logs follow below') &&
        /listening/.test(output.slice(output.indexOf('Logs follow below'))),
      120_000,
    );
    await whileUp?.(plain(output), port);
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
  return plain(output);
}

describe.skipIf(!existsSync(SCRIPT))('the first start on a terminal', () => {
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints one readable block (addresses, demo key, a request to try, the link) apart from the logs, which are readable lines', async () => {
    // the demo data answers common two-word searches, with the demo key
    const searches: Record<string, number> = {};
    const shown = await serveOnTerminal({ LOG_LEVEL: 'info' }, async (output, port) => {
      const demoKey = /^ {4}(dix_live_\w{38})$/m.exec(output)?.[1];
      for (const search of ['cloud data', 'solar energy', 'my home']) {
        const response = await fetch(
          `http://127.0.0.1:${port}/api/v1/domains?${new URLSearchParams({ search }).toString()}`,
          { headers: { authorization: `Bearer ${demoKey ?? ''}` } },
        );
        expect(response.status).toBe(200);
        searches[search] = ((await response.json()) as { data: unknown[] }).data.length;
      }
    });
    expect(Object.keys(searches)).toEqual(['cloud data', 'solar energy', 'my home']);
    for (const [search, rows] of Object.entries(searches)) expect(rows, search).toBeGreaterThan(0);
    const start = shown.indexOf('  Domain Index is running (pglite)');
    const end = shown.indexOf('  Logs follow below. Stop with Ctrl-C.');
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    const block = shown.slice(start, end);
    expect(block).toMatch(/^ {4}API {8}http:\/\/127\.0\.0\.1:\d+\/api\/v1$/m);
    expect(block).toMatch(/^ {4}Dashboard {2}http:\/\/127\.0\.0\.1:\d+\/dashboard$/m);
    expect(block).toMatch(/^ {4}API docs {3}http:\/\/127\.0\.0\.1:\d+\/docs$/m);
    expect(block).toMatch(/^ {4}MCP {8}http:\/\/127\.0\.0\.1:\d+\/mcp \(for AI assistants: docs\/mcp\.md\)$/m);
    expect(block).toContain(
      'Your demo key (live, pro plan: 1,000 requests an hour). It is shown only now: copy it.',
    );
    const key = /^ {4}(dix_live_\w{38})$/m.exec(block)?.[1];
    expect(key).toBeDefined();
    expect(block).toContain(`curl -H "Authorization: Bearer ${key!}" 'http://127.0.0.1:`);
    expect(block).toMatch(/^ {4}http:\/\/127\.0\.0\.1:\d+\/dashboard\/set-password\/[\w-]{43}$/m);
    // nothing of the logs inside the block, and the logs are lines for people, not JSON
    expect(block).not.toMatch(/INFO|"level"/);
    const logs = shown.slice(end);
    expect(logs).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: listening$/m);
    expect(shown).not.toMatch(/^\{"level"/m);
  }, 180_000);

  it('on a restart says how to get a key again, and keeps JSON logs when LOG_FORMAT=json', async () => {
    const shown = await serveOnTerminal({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
    expect(shown).toContain(
      'A demo key was created on the first start and shown then; only its hash is kept.',
    );
    expect(shown).toContain(
      'To get a key, create another in the dashboard (Keys, then "Create key"), or stop the server and run `pnpm domain-index keys create --plan pro`.',
    );
    expect(shown).not.toMatch(/dix_live_\w{38}/);
    // the demo account has no password yet: a new link
    expect(shown).toMatch(/^ {4}http:\/\/127\.0\.0\.1:\d+\/dashboard\/set-password\/[\w-]{43}$/m);
    expect(shown).toMatch(/^\{"level":30,.*"msg":"listening"\}$/m);
  }, 180_000);
});
