import { execFileSync, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '@domain-index/contract/openapi';
import { startWebhookReceiver, type WebhookReceiver } from '@domain-index/test-support/webhook-receiver';
import { DomainIndex, NotFoundError, verifyWebhook } from '../src';
import { startLiveApi, type LiveApi } from './support/live-api';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');

/** The alert, its message and the receiver the examples and samples name; the tests put real ones in their place. */
const EXAMPLE_ALERT_ID = 'alt_7Qw2mXc9Rk4TbN1y';
const EXAMPLE_WATCHLIST_ID = 'wl_3kQ9vT2mXw8RbN4p';
const EXAMPLE_DELIVERY_ID = 'msg_Zr0sQmA1bC2dE3fG4hI5jK';
const EXAMPLE_WEBHOOK_URL = 'https://hooks.example.com/domain-index';

/** The ```ts blocks of the client README, in order: every example there is run here. */
function readmeExamples(): string[] {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/**
 * A loopback server that takes requests and never answers them (so a call can be aborted in
 * flight), and tells at GET /__seen how many API requests it has received.
 */
async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  let seen = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === '/__seen') res.end(String(seen));
    else seen += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Script text: waits (polling, with a deadline) until the silent server has one more request than `before`. */
const WAIT_FOR_REQUEST = `
const seen = async () => Number(await (await fetch(process.env.SILENT_URL + '/__seen')).text());
async function arrived(before) {
  for (const deadline = Date.now() + 10000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    if ((await seen()) > before) return;
  }
  throw new Error('the request never reached the server');
}
/** The error of a call of lib's client aborted once its request has reached the server. */
async function abortedInFlight(lib) {
  const client = new lib.DomainIndex({ apiKey: 'dix_test_abc', baseUrl: process.env.SILENT_URL, maxRetries: 2 });
  const controller = new AbortController();
  const before = await seen();
  const pending = client.stats({ signal: controller.signal }).then(() => 'answered', (error) => error);
  await arrived(before);
  controller.abort();
  return pending;
}
`;

describe('the published package, installed from its tarball outside the workspace', () => {
  let api: LiveApi;
  let receiver: WebhookReceiver;
  let silent: Awaited<ReturnType<typeof startSilentServer>>;
  let scratch: string;
  let env: NodeJS.ProcessEnv;
  const run = (file: string) => execFileSync(process.execPath, [file], { cwd: scratch, env, encoding: 'utf8', timeout: 60_000 });
  // asynchronous: the silent server answers /__seen from this process
  const runAsync = async (file: string) => (await promisify(execFile)(process.execPath, [file], { cwd: scratch, env, encoding: 'utf8', timeout: 60_000 })).stdout;

  beforeAll(async () => {
    // the alerts' webhooks go to a receiver on loopback, which the server allow-lists
    receiver = await startWebhookReceiver();
    api = await startLiveApi({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    silent = await startSilentServer();
    scratch = mkdtempSync(join(tmpdir(), 'di-consumer-'));
    env = { PATH: process.env.PATH ?? '', DOMAIN_INDEX_API_KEY: api.apiKey, DOMAIN_INDEX_BASE_URL: api.baseUrl, SILENT_URL: silent.url };
    // from a clean slate: `pack` must build the code itself (prepack)
    rmSync(join(packageDir, 'dist'), { recursive: true, force: true });
    execFileSync('npm', ['pack', '--pack-destination', scratch], { cwd: packageDir, stdio: 'ignore' });
    const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'))!;
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, version: '1.0.0' }));
    // no registry needed: the client has no runtime dependency
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', `./${tarball}`], { cwd: scratch, stdio: 'ignore' });
  }, 240_000);
  afterAll(async () => {
    await silent?.close();
    await receiver?.close();
    await api.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('ships only dist, README, CHANGELOG and package.json, with no dependency', () => {
    const installed = join(scratch, 'node_modules/@domain-index/client');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    expect(readdirSync(installed).sort()).toEqual(['CHANGELOG.md', 'README.md', 'dist', 'package.json']);
  });

  it('holds every file its README links to', () => {
    const installed = join(scratch, 'node_modules/@domain-index/client');
    const readme = readFileSync(join(installed, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'));
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      expect(link, link).not.toMatch(/^\.\.\//);
      expect(existsSync(join(installed, link.split('#')[0]!)), link).toBe(true);
    }
  });

  it('throws its own AbortError and TimeoutError from both builds, instanceof either copy of the classes', async () => {
    writeFileSync(
      join(scratch, 'abort.mjs'),
      `import * as esm from '@domain-index/client';
import { createRequire } from 'node:module';
const cjs = createRequire(import.meta.url)('@domain-index/client');
${WAIT_FOR_REQUEST}
const classes = (error) => ({
  name: error.name,
  abortEsm: error instanceof esm.AbortError,
  abortCjs: error instanceof cjs.AbortError,
  baseEsm: error instanceof esm.DomainIndexError,
  baseCjs: error instanceof cjs.DomainIndexError,
  connection: error instanceof esm.ConnectionError || error instanceof cjs.ConnectionError,
  timeoutEsm: error instanceof esm.TimeoutError,
  timeoutCjs: error instanceof cjs.TimeoutError,
  rateLimit: error instanceof esm.RateLimitError || error instanceof cjs.RateLimitError,
});
const slow = (lib) => new lib.DomainIndex({ apiKey: 'dix_test_abc', baseUrl: process.env.SILENT_URL, timeout: 200, maxRetries: 0 }).stats().catch((error) => error);
console.log(JSON.stringify({
  twoCopies: esm.AbortError !== cjs.AbortError,
  fromEsm: classes(await abortedInFlight(esm)),
  fromCjs: classes(await abortedInFlight(cjs)),
  timeoutFromEsm: classes(await slow(esm)),
  timeoutFromCjs: classes(await slow(cjs)),
}));`,
    );
    writeFileSync(
      join(scratch, 'abort.cjs'),
      `const { AbortError, DomainIndex, DomainIndexError } = require('@domain-index/client');
${WAIT_FOR_REQUEST}
abortedInFlight({ DomainIndex }).then((error) => console.log(JSON.stringify({ name: error.name, abort: error instanceof AbortError, base: error instanceof DomainIndexError })));`,
    );
    const aborted = { name: 'AbortError', abortEsm: true, abortCjs: true, baseEsm: true, baseCjs: true, connection: false, timeoutEsm: false, timeoutCjs: false, rateLimit: false };
    const timedOut = { name: 'TimeoutError', abortEsm: false, abortCjs: false, baseEsm: true, baseCjs: true, connection: true, timeoutEsm: true, timeoutCjs: true, rateLimit: false };
    expect(JSON.parse(await runAsync('abort.mjs'))).toEqual({ twoCopies: true, fromEsm: aborted, fromCjs: aborted, timeoutFromEsm: timedOut, timeoutFromCjs: timedOut });
    expect(JSON.parse(await runAsync('abort.cjs'))).toEqual({ name: 'AbortError', abort: true, base: true });
  });

  it('verifies webhooks from both builds, and their errors are instanceof either copy of the classes', () => {
    writeFileSync(
      join(scratch, 'webhooks.mjs'),
      `import * as esm from '@domain-index/client';
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
const cjs = createRequire(import.meta.url)('@domain-index/client');
const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
const body = JSON.stringify({ ok: true });
const timestamp = String(Math.floor(Date.now() / 1000));
const signature = createHmac('sha256', Buffer.alloc(32, 7)).update('msg_1.' + timestamp + '.' + body).digest('base64');
const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': timestamp, 'webhook-signature': 'v1,' + signature };
const refusal = (lib) => { try { lib.verifyWebhook(body + ' ', headers, secret); return 'accepted'; } catch (error) { return error; } };
const classes = (error) => ({ reason: error.reason, esm: error instanceof esm.WebhookVerificationError, cjs: error instanceof cjs.WebhookVerificationError, base: error instanceof esm.DomainIndexError && error instanceof cjs.DomainIndexError });
const expired = new cjs.CursorExpiredError('gone', { status: 410, code: 'cursor_expired' });
const limited = new esm.PermissionDeniedError('no more alerts', { status: 403, code: 'alert_limit_reached' });
console.log(JSON.stringify({
  esm: esm.verifyWebhook(body, headers, secret),
  cjs: cjs.verifyWebhook(body, headers, secret),
  refusedByEsm: classes(refusal(esm)),
  refusedByCjs: classes(refusal(cjs)),
  expired: { esm: expired instanceof esm.CursorExpiredError, code: expired.code, notAuth: expired instanceof esm.AuthenticationError },
  limited: { cjs: limited instanceof cjs.PermissionDeniedError, base: limited instanceof cjs.DomainIndexError, code: limited.code, notFound: limited instanceof cjs.NotFoundError },
}));`,
    );
    const refused = { reason: 'no_matching_signature', esm: true, cjs: true, base: true };
    expect(JSON.parse(run('webhooks.mjs'))).toEqual({
      esm: { ok: true },
      cjs: { ok: true },
      refusedByEsm: refused,
      refusedByCjs: refused,
      expired: { esm: true, code: 'cursor_expired', notAuth: false },
      limited: { cjs: true, base: true, code: 'alert_limit_reached', notFound: false },
    });
  });

  it('works from an ES module', () => {
    writeFileSync(
      join(scratch, 'esm.mjs'),
      `import { DomainIndex, NotFoundError } from '@domain-index/client';
const client = new DomainIndex();
const page = await client.domains.list({ status: 'all', limit: 12 });
const missing = await client.domains.get('not-listed-at-all.com').catch((e) => e);
console.log(JSON.stringify({ rows: page.data.length, notFound: missing instanceof NotFoundError }));`,
    );
    expect(JSON.parse(run('esm.mjs'))).toEqual({ rows: 12, notFound: true });
  });

  it('works from CommonJS', () => {
    writeFileSync(
      join(scratch, 'cjs.cjs'),
      `const { DomainIndex } = require('@domain-index/client');
(async () => {
  const client = new DomainIndex();
  let rows = 0;
  for await (const _ of client.domains.list({ status: 'all', limit: 10 }, { maxItems: 25 })) rows += 1;
  const stats = await client.stats();
  console.log(JSON.stringify({ rows, hasTotal: stats.total > 0 }));
})();`,
    );
    expect(JSON.parse(run('cjs.cjs'))).toEqual({ rows: 25, hasTotal: true });
  });

  it('type-checks a strict TypeScript consumer, and rejects a mistyped parameter', () => {
    writeFileSync(
      join(scratch, 'consumer.ts'),
      `import { CursorExpiredError, DomainIndex, DomainIndexError, EVENT_TYPES, PermissionDeniedError, RateLimitError, verifyWebhook, type AlertWithSecret, type CreateAlert, type DeliveryAttempt, type Domain, type Event, type EventParams, type EventType, type SearchParams, type WebhookPayload } from '@domain-index/client';
const params: SearchParams = { status: 'dropping', sort: 'length', min_price: 10, no_hyphens: true };
const client = new DomainIndex({ apiKey: 'x' });
export async function names(): Promise<string[]> {
  const out: string[] = [];
  for await (const d of client.domains.list(params)) out.push(d.domain_name);
  return out;
}
export const retryIn = (e: unknown): number | undefined => (e instanceof RateLimitError ? e.retryAfter : undefined);
export const price = (d: Domain): number | null => d.current_bid;
// @ts-expect-error status is a closed set
export const wrong: SearchParams = { status: 'sold' };
export const isLimited = (e: unknown): boolean => e instanceof DomainIndexError && e.code === 'rate_limited';
// @ts-expect-error code is the ErrorCode union: a misspelt code does not compile
export const misspelt = (e: DomainIndexError): boolean => e.code === 'rate_limit';
export async function follow(store: (cursor: string) => Promise<void>): Promise<string> {
  for await (const page of client.events.pages({ type: ['listing.added', 'listing.updated'], tld: 'ai' }, { maxPages: 2 })) {
    const names: (string | undefined)[] = page.data.map((event: Event) => event.data.object?.domain_name);
    if (names.length > 0) await store(page.next_cursor);
  }
  return client.events.watch({ after: 'now', type: 'listing.removed' }, { signal: AbortSignal.timeout(10), onEvents: (events: Event[], next: string) => store(next + String(events.length)) });
}
export const kinds: readonly EventType[] = EVENT_TYPES;
// @ts-expect-error type is a closed set of event types
export const notAType: EventParams = { type: ['listing.sold'] };
export const verified = (body: string, headers: Record<string, string>): WebhookPayload => verifyWebhook(body, headers, ['whsec_a', 'whsec_b'], { toleranceSeconds: 60 });
export const listed = (body: string, headers: Record<string, string>): (string | undefined)[] => verifyWebhook(body, headers, 'whsec_a').events.map((event: Event) => event.data.object?.domain_name);
export async function alertFlow(): Promise<string | null> {
  const body: CreateAlert = { name: 'Cheap .ai names', query: 'type=listing.added&tld=ai', webhook_url: 'https://hooks.example.com/x', email_digest: null };
  const alert: AlertWithSecret = await client.alerts.create(body);
  await client.alerts.update(alert.id, { paused: true });
  const attempts: DeliveryAttempt[] = [];
  for await (const attempt of client.alerts.deliveries(alert.id, { limit: 50 }, { maxItems: 100 })) attempts.push(attempt);
  return alert.webhook_secret;
}
// @ts-expect-error an alert needs a name
export const unnamed: CreateAlert = { query: 'tld=ai' };
// @ts-expect-error the digest is hourly or daily
export const weekly: CreateAlert = { name: 'n', query: 'tld=ai', email_digest: 'weekly' };
export const tooMany = (e: unknown): boolean => e instanceof PermissionDeniedError && e.code === 'alert_limit_reached';
export const expiredCursor = (e: unknown): boolean => e instanceof CursorExpiredError && e.code === 'cursor_expired';
declare const process: { env: Record<string, string | undefined> };
export const fromEnvironment = new DomainIndex({ apiKey: process.env.DOMAIN_INDEX_API_KEY, baseUrl: process.env.DOMAIN_INDEX_BASE_URL });
`,
    );
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, exactOptionalPropertyTypes: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: false, lib: ['es2022', 'dom'], types: [] }, files: ['consumer.ts'] }),
    );
    expect(() => execFileSync(process.execPath, [tsc, '-p', scratch], { encoding: 'utf8' })).not.toThrow();
  });

  it('runs every example of the README against the live API', async () => {
    const examples = readmeExamples();
    expect(examples.length).toBeGreaterThanOrEqual(5);
    for (const [index, code] of examples.entries()) {
      // an alert's webhook goes to the loopback receiver (answered from this process: not run
      // synchronously), as the example's URL would go to yours
      writeFileSync(join(scratch, `readme-${index}.mjs`), code.replaceAll(EXAMPLE_WEBHOOK_URL, receiver.url));
      const output = await runAsync(`readme-${index}.mjs`);
      expect(output.length, `example ${index}`).toBeGreaterThan(0);
      // the alerts example goes all the way (the plan's limit is not what it prints)
      if (code.includes('client.alerts.create')) expect(output, code).toMatch(/^alt_\S+ max_price=500&no_hyphens=true&tld=ai&type=listing.added\nsent msg_\S+: your receiver sees it as webhook-id true\n/);
    }
  });

  it("runs every TypeScript client sample of the API's OpenAPI document against the live API, each alert sample on an alert of its own", async () => {
    const document = openApiDocument({ serverUrl: api.baseUrl });
    const samples = Object.values(document.paths as Record<string, Record<string, { operationId: string; 'x-codeSamples': { label: string; source: string }[] }>>).flatMap((methods) =>
      Object.values(methods).map((operation) => ({ id: operation.operationId, source: operation['x-codeSamples'].find((sample) => sample.label === 'TypeScript client')!.source })),
    );
    expect(samples).toHaveLength(23);
    const client = new DomainIndex({ apiKey: api.apiKey, baseUrl: api.baseUrl });
    /** A fresh alert of the key, webhooked to the receiver, with one message queued. */
    const freshAlert = async () => {
      const alert = await client.alerts.create({ name: 'sample', query: 'type=listing.added&tld=ai', webhook_url: receiver.url });
      const message = await client.alerts.test(alert.id);
      // sent within a turn of the server's delivery loop: the delivery log then has its attempt
      await expect.poll(async () => (await client.alerts.deliveries(alert.id)).data.length, { timeout: 15_000 }).toBeGreaterThan(0);
      return { ...alert, messageId: message.id };
    };
    const outputs: Record<string, string> = {};
    for (const [index, { id, source }] of samples.entries()) {
      const alert = source.includes(EXAMPLE_ALERT_ID) ? await freshAlert() : undefined;
      // each watchlist sample on a watchlist of its own, with a name on it
      const watchlist = source.includes(EXAMPLE_WATCHLIST_ID) ? await client.watchlists.create({ name: 'sample', domains: ['cloudhosting.com'] }) : undefined;
      const code = source
        .replaceAll(EXAMPLE_WATCHLIST_ID, watchlist?.id ?? EXAMPLE_WATCHLIST_ID)
        .replaceAll(EXAMPLE_WEBHOOK_URL, receiver.url)
        .replaceAll(EXAMPLE_ALERT_ID, alert?.id ?? EXAMPLE_ALERT_ID)
        .replaceAll(EXAMPLE_DELIVERY_ID, alert?.messageId ?? EXAMPLE_DELIVERY_ID);
      writeFileSync(join(scratch, `openapi-sample-${index}.mjs`), code);
      const output = await runAsync(`openapi-sample-${index}.mjs`);
      expect(output.length, source).toBeGreaterThan(0);
      outputs[id] = output;
      // what each write did, read back
      if (id === 'updateAlert') expect((await client.alerts.get(alert!.id)).paused).toBe(true);
      if (id === 'deleteAlert') expect(await client.alerts.get(alert!.id).catch((error: unknown) => error)).toBeInstanceOf(NotFoundError);
      if (id === 'rotateAlertSecret') {
        const secret = output.trim();
        expect(secret).toMatch(/^whsec_/);
        expect(secret).not.toBe(alert!.webhook_secret);
      }
      if (id === 'testAlert') {
        // the message the sample queued reaches the receiver, signed with the alert's secret
        const messageId = output.trim();
        await expect.poll(() => receiver.received.some((request) => request.headers['webhook-id'] === messageId), { timeout: 15_000 }).toBe(true);
        const request = receiver.received.find((received) => received.headers['webhook-id'] === messageId)!;
        expect(verifyWebhook(request.body, request.headers, alert!.webhook_secret!)).toEqual({ type: 'test', alert_id: alert!.id, events: [] });
      }
      if (alert !== undefined && id !== 'deleteAlert') await client.alerts.delete(alert.id);
      if (id === 'updateWatchlist') expect((await client.watchlists.get(watchlist!.id)).name).toBe('Drops to catch this week');
      if (id === 'deleteWatchlist') expect(await client.watchlists.get(watchlist!.id).catch((error: unknown) => error)).toBeInstanceOf(NotFoundError);
      if (id === 'addWatchedDomains') expect((await client.watchlists.get(watchlist!.id)).domains_count).toBe(2);
      if (id === 'removeWatchedDomain') expect((await client.watchlists.get(watchlist!.id)).domains_count).toBe(0);
      if (watchlist !== undefined && id !== 'deleteWatchlist') await client.watchlists.delete(watchlist.id);
    }
    // cloudhosting.com was on the list already: one added, one there, the middle one refused
    expect(outputs.addWatchedDomains).toMatch(/^1 1 \[\s+\{\s+index: 1,\s+domain: 'not a name',/);
    // the name's page and the watchlist agree on how many marketplaces list it now
    expect(outputs.getName).toMatch(/^\d+ listings never checked undefined\n$/);
    const listed = outputs.getName!.split(' ')[0]!;
    expect(outputs.listWatchedDomains).toMatch(new RegExp(`^cloudhosting\\.com null ${listed} (\\d+(\\.\\d+)?|null) \\d{4}-`));
    expect(outputs.createAlert).toMatch(/^alt_\S+ whsec_\S+\n$/);
    expect(outputs.getDomain).toBe('not listed right now\n');
    expect(outputs.resendDelivery).toBe('pending\n');
    const created = outputs.createAlert!.split(' ')[0]!;
    expect((await client.alerts.get(created)).webhook_url).toBe(receiver.url);
  });

  it('passes publint and are-the-types-wrong', () => {
    const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'))!;
    const bin = (name: string) => join(packageDir, 'node_modules/.bin', name);
    // both exit non-zero on a problem, which fails this test
    execFileSync(bin('publint'), ['--strict', '--pack', 'npm', packageDir], { encoding: 'utf8' });
    execFileSync(bin('attw'), [join(scratch, tarball)], { encoding: 'utf8' });
  });
});
