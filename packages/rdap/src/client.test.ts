import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRdapClient, type RdapClient, type RdapClientOptions } from './client';
import { startFakeRdap, type FakeRdap } from './testing';

const at = (iso: string) => new Date(iso);

let fake: FakeRdap;
const clients: RdapClient[] = [];
const lines: string[] = [];

beforeAll(async () => {
  fake = await startFakeRdap();
});
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const kind of ['thin', 'thick', 'cctld'] as const) fake.behave(kind, { kind: 'normal' });
  fake.resetCounts();
  lines.length = 0;
});

/** A client on the fake's bootstrap, with the bootstrap loaded. */
async function client(options: RdapClientOptions = {}): Promise<RdapClient> {
  const created = createRdapClient({
    bootstrapUrl: fake.bootstrapUrl,
    log: (line) => lines.push(line),
    limits: '127.0.0.1=8/6000',
    retryDelayMs: 20,
    ...options,
  });
  clients.push(created);
  await created.refreshBootstrap();
  return created;
}

describe('the fake registries’ shapes', () => {
  it('reads a thin registry’s answer (Verisign-like: upper case, registrar in publicIds)', async () => {
    fake.set('thin-shape.com', {
      createdAt: at('1997-09-15T04:00:00Z'),
      expiresAt: at('2028-09-14T04:00:00Z'),
      updatedAt: at('2019-09-09T15:39:04Z'),
      registrar: { name: 'MarkMonitor Inc.', ianaId: 292 },
      statuses: [
        'client delete prohibited',
        'client transfer prohibited',
        'server update prohibited',
      ],
    });
    const rdap = await client();
    await expect(rdap.check('thin-shape.com')).resolves.toEqual({
      outcome: 'found',
      server: fake.servers.thin,
      registration: {
        phase: 'registered',
        statuses: [
          'client delete prohibited',
          'client transfer prohibited',
          'server update prohibited',
        ],
        registrar: { name: 'MarkMonitor Inc.', ianaId: 292 },
        createdAt: at('1997-09-15T04:00:00Z'),
        expiresAt: at('2028-09-14T04:00:00Z'),
        updatedAt: at('2019-09-09T15:39:04Z'),
        expectedDropAt: null,
      },
    });
    expect(fake.requests('thin').map(({ path, accept }) => ({ path, accept }))).toEqual([
      {
        path: '/com/v1/domain/thin-shape.com',
        accept: 'application/rdap+json, application/json;q=0.9',
      },
    ]);
  });

  it('reads a thick registry’s answer (PIR-like: registrant redacted, transfer event)', async () => {
    fake.set('thick-shape.org', {
      createdAt: at('2010-01-01T00:00:00Z'),
      expiresAt: at('2027-01-01T00:00:00Z'),
      updatedAt: at('2026-01-05T10:00:00Z'),
      registrar: { name: 'Gandi SAS', ianaId: 81 },
    });
    const rdap = await client();
    await expect(rdap.check('thick-shape.org')).resolves.toEqual({
      outcome: 'found',
      server: fake.servers.thick,
      registration: {
        phase: 'registered',
        statuses: ['client transfer prohibited', 'client delete prohibited'],
        registrar: { name: 'Gandi SAS', ianaId: 81 },
        createdAt: at('2010-01-01T00:00:00Z'),
        expiresAt: at('2027-01-01T00:00:00Z'),
        updatedAt: at('2026-01-05T10:00:00Z'),
        expectedDropAt: null,
      },
    });
  });

  it('reads a ccTLD’s answer (no registrar, no registration or expiration)', async () => {
    fake.set('cc-shape.uk', { updatedAt: at('2025-12-24T12:00:00Z'), statuses: ['active'] });
    const rdap = await client();
    await expect(rdap.check('cc-shape.uk')).resolves.toEqual({
      outcome: 'found',
      server: fake.servers.cctld,
      registration: {
        phase: 'registered',
        statuses: ['active'],
        registrar: null,
        createdAt: null,
        expiresAt: null,
        updatedAt: at('2025-12-24T12:00:00Z'),
        expectedDropAt: null,
      },
    });
  });
});

describe('check', () => {
  it('reads a 404 as available and a TLD without RDAP as no_rdap, asking no one', async () => {
    const rdap = await client();
    await expect(rdap.check('never-registered.com')).resolves.toEqual({
      outcome: 'not_found',
      server: fake.servers.thin,
      registration: {
        phase: 'available',
        statuses: [],
        registrar: null,
        createdAt: null,
        expiresAt: null,
        updatedAt: null,
        expectedDropAt: null,
      },
    });
    fake.resetCounts();
    await expect(rdap.check('example.de')).resolves.toEqual({
      outcome: 'no_rdap',
      server: null,
      registration: {
        phase: 'unknown',
        statuses: [],
        registrar: null,
        createdAt: null,
        expiresAt: null,
        updatedAt: null,
        expectedDropAt: null,
      },
    });
    expect(rdap.serverFor('example.de')).toBeNull();
    expect((['thin', 'thick', 'cctld'] as const).map((kind) => fake.requests(kind).length)).toEqual(
      [0, 0, 0],
    );
  });

  it('follows a name through registered, grace, redemption, pending delete, 404 and registered again', async () => {
    const rdap = await client();
    const expiresAt = at('2026-01-01T00:00:00Z');
    const phase = async () => {
      const result = await rdap.check('walked.com');
      return result.outcome === 'found' || result.outcome === 'not_found'
        ? {
            phase: result.registration.phase,
            drop: result.registration.expectedDropAt?.toISOString() ?? null,
          }
        : result;
    };
    fake.set('walked.com', { expiresAt, updatedAt: at('2025-01-01T00:00:00Z') });
    await expect(phase()).resolves.toEqual({ phase: 'registered', drop: null });
    fake.set('walked.com', {
      expiresAt: at('2027-01-01T00:00:00Z'),
      statuses: ['auto renew period'],
    });
    await expect(phase()).resolves.toEqual({ phase: 'grace', drop: '2027-03-22T00:00:00.000Z' });
    fake.set('walked.com', {
      expiresAt,
      updatedAt: at('2026-02-01T00:00:00Z'),
      statuses: ['redemption period', 'pending delete'],
    });
    await expect(phase()).resolves.toEqual({
      phase: 'redemption',
      drop: '2026-03-08T00:00:00.000Z',
    });
    fake.set('walked.com', {
      expiresAt,
      updatedAt: at('2026-03-03T00:00:00Z'),
      statuses: ['pending delete'],
    });
    await expect(phase()).resolves.toEqual({
      phase: 'pending_delete',
      drop: '2026-03-08T00:00:00.000Z',
    });
    fake.remove('walked.com');
    await expect(phase()).resolves.toEqual({ phase: 'available', drop: null });
    fake.set('walked.com', {
      createdAt: at('2026-03-08T00:01:00Z'),
      expiresAt: at('2027-03-08T00:01:00Z'),
    });
    await expect(phase()).resolves.toEqual({ phase: 'registered', drop: null });
  });

  it('refuses an answer for another name or of another class', async () => {
    const rdap = await client();
    fake.set('asked.org', { ldhName: 'other.org' });
    await expect(rdap.check('asked.org')).resolves.toMatchObject({
      outcome: 'error',
      server: fake.servers.thick,
      reason: 'malformed domain object: ldhName "other.org" is not the name asked for (asked.org)',
    });
    fake.set('asked.org', { objectClassName: 'entity' });
    await expect(rdap.check('asked.org')).resolves.toMatchObject({
      outcome: 'error',
      reason: 'malformed domain object: objectClassName is "entity", not "domain"',
    });
    fake.behave('thick', { kind: 'body', status: 200, body: '<html>maintenance</html>' });
    await expect(rdap.check('asked.org')).resolves.toMatchObject({
      outcome: 'error',
      reason: 'malformed domain object: not JSON',
    });
  });

  it('honours Retry-After in seconds on 429: no request to the host before then', async () => {
    const rdap = await client();
    fake.set('limited.com');
    fake.behave('thin', { kind: 'status', status: 429, retryAfter: '2' });
    const before = Date.now();
    const first = await rdap.check('limited.com');
    expect(first).toMatchObject({
      outcome: 'rate_limited',
      server: fake.servers.thin,
      reason: 'HTTP 429',
    });
    const retryAt = first.outcome === 'rate_limited' ? first.retryAt!.getTime() : 0;
    expect(retryAt).toBeGreaterThanOrEqual(before + 2000);
    expect(retryAt).toBeLessThanOrEqual(Date.now() + 2000);

    fake.behave('thin', { kind: 'normal' });
    const second = await rdap.check('limited.com');
    expect(second).toMatchObject({ outcome: 'rate_limited', retryAt: new Date(retryAt) });
    // the same host under another TLD waits too
    await expect(rdap.check('limited.net')).resolves.toMatchObject({ outcome: 'rate_limited' });
    expect(fake.requests('thin')).toHaveLength(1);

    await new Promise((resolve) => setTimeout(resolve, retryAt - Date.now() + 20));
    await expect(rdap.check('limited.com')).resolves.toMatchObject({ outcome: 'found' });
    const requests = fake.requests('thin');
    expect(requests).toHaveLength(2);
    expect(requests[1]!.at).toBeGreaterThanOrEqual(retryAt);
  });

  it('runs many checks at once without a warning of leaked listeners', async () => {
    const rdap = await client({ limits: '127.0.0.1=16/6000' });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 40; i += 1) fake.set(`busy-${i}.com`);
      // answers that take a while, so that the checks are in flight together
      fake.behave('thin', { kind: 'slow', delayMs: 100 });
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => rdap.check(`busy-${i}.com`)));
      expect(results.every((result) => result.outcome === 'found')).toBe(true);
      // 16 checks at once (the gate's limit), each listening on the client's signal while it
      // waits or runs, whatever the server saw in flight at one moment
      expect(fake.maxConcurrent('thin')).toBeGreaterThan(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('sends none of the checks that waited their turn when a 429 comes', async () => {
    const rdap = await client({ limits: '127.0.0.1=1/6000' });
    fake.behave('thin', { kind: 'status', status: 429, retryAfter: '30' });
    const results = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((name) => rdap.check(`${name}.com`)),
    );
    expect(results.map((result) => result.outcome)).toEqual(Array(5).fill('rate_limited'));
    expect(fake.requests('thin')).toHaveLength(1);
  });

  it('honours Retry-After as an HTTP date on 503', async () => {
    const now = at('2026-06-01T12:00:00Z');
    const rdap = await client({ now: () => now });
    fake.behave('thick', {
      kind: 'status',
      status: 503,
      retryAfter: 'Mon, 01 Jun 2026 12:05:00 GMT',
    });
    await expect(rdap.check('busy.org')).resolves.toEqual({
      outcome: 'rate_limited',
      server: fake.servers.thick,
      reason: 'HTTP 503',
      retryAt: at('2026-06-01T12:05:00Z'),
    });
    await expect(rdap.check('busy.org')).resolves.toMatchObject({
      outcome: 'rate_limited',
      retryAt: at('2026-06-01T12:05:00Z'),
    });
    expect(fake.requests('thick')).toHaveLength(1);
  });

  it('waits a day at most, whatever Retry-After asks', async () => {
    const now = at('2026-06-01T12:00:00Z');
    const rdap = await client({ now: () => now });
    fake.behave('thick', { kind: 'status', status: 429, retryAfter: '99999999' });
    await expect(rdap.check('greedy.org')).resolves.toMatchObject({
      outcome: 'rate_limited',
      retryAt: at('2026-06-02T12:00:00Z'),
    });
  });

  it('retries a 5xx once within a check, then answers error with a backed-off retryAt', async () => {
    const now = at('2026-06-01T12:00:00Z');
    const rdap = await client({
      now: () => now,
      random: () => 0.5,
      backoff: { baseMs: 60_000, maxMs: 3_600_000 },
    });
    fake.behave('cctld', { kind: 'status', status: 503 });
    await expect(rdap.check('down.uk')).resolves.toEqual({
      outcome: 'error',
      server: fake.servers.cctld,
      reason: 'HTTP 503',
      retryAt: new Date(now.getTime() + 45_000),
    });
    expect(fake.requests('cctld')).toHaveLength(2);
    fake.behave('cctld', { kind: 'status', status: 500 });
    await expect(rdap.check('down.uk')).resolves.toMatchObject({
      outcome: 'error',
      retryAt: new Date(now.getTime() + 90_000),
    });
    expect(fake.requests('cctld')).toHaveLength(4);
  });

  it('answers error after a connection is refused, retried once', async () => {
    const rdap = await client();
    const closed = await startFakeRdap();
    const server = closed.servers.thin;
    await closed.close();
    fake.behave('thin', { kind: 'redirect', to: server });
    const result = await rdap.check('refused.com');
    expect(result).toMatchObject({ outcome: 'error', server: fake.servers.thin });
    expect(result.outcome === 'error' ? result.reason : '').toMatch(/ECONNREFUSED/);
    expect(fake.requests('thin')).toHaveLength(2);
  });

  it('times out a server that does not answer', async () => {
    const rdap = await client({ timeoutMs: 300 });
    fake.behave('thick', { kind: 'hang' });
    const started = Date.now();
    await expect(rdap.check('slow.org')).resolves.toMatchObject({
      outcome: 'timeout',
      server: fake.servers.thick,
      reason: 'no answer within 300 ms',
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(fake.requests('thick')).toHaveLength(1);
  });

  it('refuses a body larger than maxResponseBytes, declared or not', async () => {
    const rdap = await client({ maxResponseBytes: 64 * 1024 });
    fake.behave('thin', { kind: 'huge', bytes: 4 * 1024 * 1024 });
    await expect(rdap.check('huge.com')).resolves.toMatchObject({
      outcome: 'error',
      reason: 'response too large',
    });
    fake.behave('thin', { kind: 'huge', bytes: 4 * 1024 * 1024, declareLength: true });
    await expect(rdap.check('huge.com')).resolves.toMatchObject({
      outcome: 'error',
      reason: 'response too large',
    });
  });

  it('follows a redirect to another server, and refuses too many or non-http ones', async () => {
    const rdap = await client();
    fake.set('moved.com', { registrar: { name: 'Moved Registrar', ianaId: 7 } }, 'thick');
    fake.behave('thin', { kind: 'redirect', to: fake.servers.thick, status: 301 });
    await expect(rdap.check('moved.com')).resolves.toMatchObject({
      outcome: 'found',
      server: fake.servers.thin,
      registration: { registrar: { name: 'Moved Registrar', ianaId: 7 } },
    });
    fake.behave('thin', { kind: 'redirect', to: fake.servers.thin });
    await expect(rdap.check('moved.com')).resolves.toMatchObject({
      outcome: 'error',
      reason: 'more than 3 redirects',
    });
    expect(fake.requests('thin')).toHaveLength(1 + 4);
    fake.behave('thin', { kind: 'redirect', to: 'file:///etc/' });
    await expect(rdap.check('moved.com')).resolves.toMatchObject({
      outcome: 'error',
      reason: 'redirect to file: refused',
    });
  });

  /** 50 checks at once against the thin registry, answering after `delayMs`; the request start times. */
  async function fifty(limits: string, delayMs: number): Promise<{ starts: number[]; asked: number }> {
    const rdap = await client({ limits });
    for (let n = 0; n < 50; n++) fake.set(`name${n}.com`);
    fake.behave('thin', { kind: 'slow', delayMs });
    const asked = Date.now();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) => rdap.check(`name${n}.com`)),
    );
    expect(results.filter((result) => result.outcome === 'found')).toHaveLength(50);
    const starts = fake.requests('thin').map((request) => request.at);
    expect(starts).toHaveLength(50);
    return { starts, asked };
  }

  it('gives each host its own limits', async () => {
    const port = new URL(fake.servers.thin).port;
    const rdap = await client({ limits: `127.0.0.1:${port}=3/600,*=1/60` });
    expect(rdap.limitsFor(fake.servers.thin)).toEqual({ concurrency: 3, perMinute: 600 });
    expect(rdap.limitsFor(fake.servers.thick)).toEqual({ concurrency: 1, perMinute: 60 });
    expect(rdap.limitsFor('rdap.verisign.com')).toEqual({ concurrency: 1, perMinute: 60 });
  });

  it('never has more requests in flight to a host than its concurrency, under 50 concurrent checks', async () => {
    const port = new URL(fake.servers.thin).port;
    await fifty(`127.0.0.1:${port}=3/6000`, 200);
    // three at most, and three reached: the limit held and was used
    expect(fake.maxConcurrent('thin')).toBe(3);
  });

  it('never starts requests to a host faster than its rate, under 50 concurrent checks', async () => {
    const port = new URL(fake.servers.thin).port;
    const { starts, asked } = await fifty(`127.0.0.1:${port}=10/600`, 5);
    expect(fake.maxConcurrent('thin')).toBeLessThanOrEqual(10);
    // 600 a minute: 100 ms apart. A request arrives no earlier than the client lets it go, so
    // the 50th arrived at least 49 intervals after the checks were asked for, however late the
    // first ones arrived.
    expect(starts.at(-1)! - asked).toBeGreaterThanOrEqual(49 * 100);
    // and no burst: any ten intervals as they arrived span most of a second (a request held up
    // on its way shortens the window before it; a burst of ten would make it near 0)
    for (let i = 0; i + 10 < starts.length; i++) {
      expect(starts[i + 10]! - starts[i]!).toBeGreaterThanOrEqual(700);
    }
  });

  it('rejects a check whose caller aborts while it waits its turn', async () => {
    const rdap = await client({ limits: '127.0.0.1=1/6000' });
    fake.set('first.org');
    fake.behave('thick', { kind: 'slow', delayMs: 300 });
    const first = rdap.check('first.org');
    const controller = new AbortController();
    const second = rdap.check('first.org', { signal: controller.signal });
    controller.abort(new Error('no longer wanted'));
    await expect(second).rejects.toThrow('no longer wanted');
    await expect(first).resolves.toMatchObject({ outcome: 'found' });
    expect(fake.requests('thick')).toHaveLength(1);
  });
});

describe('the bootstrap', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rdap-bootstrap-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts from the shipped copy, fetches the URL, and keeps a copy in the cache file', async () => {
    const cacheFile = join(dir, 'fetched.json');
    const rdap = createRdapClient({
      bootstrapUrl: fake.bootstrapUrl,
      bootstrapCacheFile: cacheFile,
      fetchBootstrapAtStart: false,
      log: (line) => lines.push(line),
    });
    clients.push(rdap);
    expect(rdap.serverFor('example.com')).toBe('https://rdap.verisign.com/com/v1/');
    expect(rdap.bootstrapPublication().toISOString()).toBe('2025-11-06T23:00:01.000Z');
    await rdap.refreshBootstrap();
    expect(rdap.serverFor('example.com')).toBe(fake.servers.thin);
    expect(rdap.serverFor('example.co.uk')).toBe(fake.servers.cctld);
    expect(lines).toEqual([
      expect.stringMatching(
        /^rdap bootstrap: loaded http:\/\/127\.0\.0\.1:\d+\/dns\.json, published .*, 4 labels$/,
      ),
    ]);
    expect(existsSync(cacheFile)).toBe(true);

    const restarted = createRdapClient({
      bootstrapUrl: 'http://127.0.0.1:1/dns.json',
      bootstrapCacheFile: cacheFile,
      fetchBootstrapAtStart: false,
    });
    clients.push(restarted);
    expect(restarted.serverFor('example.org')).toBe(fake.servers.thick);
  });

  it('follows a redirect to the bootstrap file', async () => {
    const rdap = createRdapClient({
      bootstrapUrl: `${fake.servers.thin}dns.json`,
      fetchBootstrapAtStart: false,
      log: (line) => lines.push(line),
    });
    clients.push(rdap);
    fake.behave('thin', { kind: 'redirect', to: new URL('/', fake.bootstrapUrl).href });
    await rdap.refreshBootstrap();
    expect(rdap.serverFor('example.org')).toBe(fake.servers.thick);
    expect(fake.requests('thin').map((request) => request.path)).toEqual(['/com/v1/dns.json']);
  });

  it('takes what the configured URL serves, even a file older than the shipped copy', async () => {
    const rdap = createRdapClient({
      bootstrapUrl: fake.bootstrapUrl,
      fetchBootstrapAtStart: false,
    });
    clients.push(rdap);
    fake.setBootstrap({
      version: '1.0',
      publication: '2000-01-01T00:00:00Z',
      services: [[['com'], ['http://127.0.0.1:9/own/']]],
    });
    try {
      await rdap.refreshBootstrap();
    } finally {
      fake.setBootstrap();
    }
    expect(rdap.serverFor('example.com')).toBe('http://127.0.0.1:9/own/');
    expect(rdap.serverFor('example.org')).toBeNull();
    expect(rdap.bootstrapPublication()).toEqual(at('2000-01-01T00:00:00Z'));
  });

  it('refuses a malformed file with one line, and keeps the data in use', async () => {
    const rdap = await client();
    fake.setBootstrap({
      version: '1.0',
      publication: '2030-01-01T00:00:00Z',
      services: [[['com'], ['gopher://rdap.example/']]],
    });
    try {
      await rdap.refreshBootstrap();
      fake.setBootstrap('{"version": "1.0", ');
      await rdap.refreshBootstrap();
    } finally {
      fake.setBootstrap();
    }
    expect(rdap.serverFor('example.com')).toBe(fake.servers.thin);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        /failed, kept the one published .*: malformed RDAP bootstrap file: services\.0\.1\.0: a base URL must be http or https$/,
      ),
      expect.stringMatching(/failed, kept the one published .*: not JSON \(.*\)$/),
    ]);
  });

  it('logs a failed fetch and a malformed cache file, and starts from the shipped copy', async () => {
    const cacheFile = join(dir, 'broken.json');
    writeFileSync(cacheFile, '{"services": 1}');
    const rdap = createRdapClient({
      bootstrapUrl: 'http://127.0.0.1:1/dns.json',
      bootstrapCacheFile: cacheFile,
      log: (line) => lines.push(line),
    });
    clients.push(rdap);
    await rdap.refreshBootstrap();
    expect(rdap.serverFor('example.com')).toBe('https://rdap.verisign.com/com/v1/');
    expect(lines).toEqual([
      `rdap bootstrap: refused ${cacheFile}: malformed RDAP bootstrap file: version: Invalid literal value, expected "1.0"; using the shipped copy published 2025-11-06T23:00:01Z`,
      expect.stringMatching(
        /^rdap bootstrap: fetching http:\/\/127\.0\.0\.1:1\/dns\.json failed, kept the one published 2025-11-06T23:00:01Z: ECONNREFUSED/,
      ),
    ]);
    expect(readFileSync(cacheFile, 'utf8')).toBe('{"services": 1}');
  });
});

describe('close', () => {
  it('ends a check in flight and the checks waiting, at once', async () => {
    const rdap = await client({ limits: '127.0.0.1=1/6000', timeoutMs: 60_000 });
    fake.behave('cctld', { kind: 'hang' });
    const inFlight = rdap.check('hangs.uk');
    const waiting = rdap.check('waits.uk');
    // the first check is at the registry, the second waits its turn behind it
    await expect.poll(() => fake.requests('cctld').length).toBe(1);
    const started = Date.now();
    const ended = [
      expect(inFlight).rejects.toThrow('RDAP client closed'),
      expect(waiting).rejects.toThrow('RDAP client closed'),
    ];
    await rdap.close();
    await Promise.all(ended);
    // at the close, not at the 60 s timeout (a loaded machine's margin)
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(fake.requests('cctld')).toHaveLength(1);
  });

  it('turns checks away once closed', async () => {
    const rdap = createRdapClient({
      bootstrapUrl: fake.bootstrapUrl,
      fetchBootstrapAtStart: false,
    });
    await rdap.close();
    await expect(rdap.check('example.com')).rejects.toThrow('RDAP client closed');
  });
});
