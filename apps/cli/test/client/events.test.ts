import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  CursorExpiredError,
  DomainIndex,
  DomainIndexError,
  InvalidRequestError,
  type Event,
  type EventPage,
} from '@domain-index/client';
import { startEventsApi, type EventsApi } from './support/events-api';
import { startFlakyProxy } from './support/flaky-proxy';

// the client package's own directory: the script imports its sources and runs with its tsx
const packageDir = fileURLToPath(new URL('../../../../packages/client/', import.meta.url));

/** A running auction of the feed; `extra` overrides its fields. */
const auction = (domain: string, extra: Record<string, unknown> = {}) => ({
  domain_name: domain,
  status: 'auction',
  current_bid: 20,
  bid_count: 1,
  auction_end_time: '2030-06-01T00:00:00.000Z',
  ...extra,
});

const FIRST = [auction('stays.com'), auction('bid-moves.com'), auction('price-moves.net'), auction('goes-away.org'), auction('also-stays.io')];
const SECOND = [
  auction('stays.com'),
  auction('bid-moves.com', { current_bid: 35, bid_count: 4 }),
  auction('price-moves.net', { current_bid: 99 }),
  auction('also-stays.io'),
  auction('brand-new.io'),
  auction('newcomer.ai', { current_bid: 300 }),
  auction('third-new.com'),
];

/** Polls `condition` until it holds; fails after the deadline. */
async function until(condition: () => boolean, what: string, deadlineMs = 15_000): Promise<void> {
  for (const deadline = Date.now() + deadlineMs; !condition(); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
  }
}

const summary = (event: Event) => [event.type, event.data.object?.domain_name ?? null];
const ids = (events: readonly Event[]) => events.map((event) => event.id);
const sequence = (id: string) => Number(id.slice('evt_'.length));

describe('the change feed through the client, against the real API and import path', () => {
  let api: EventsApi;
  let client: DomainIndex;
  /** The feed of the source as last imported, for batches that change one thing. */
  let current: Record<string, unknown>[];
  /** A client that records the URL of every request it sends. */
  const recording = (baseUrl = api.baseUrl, apiKey = api.apiKey) => {
    const urls: string[] = [];
    const fetchRecording: typeof fetch = (input, init) => {
      // the client passes the URL as text
      urls.push(input as string);
      return fetch(input, init);
    };
    return { client: new DomainIndex({ apiKey, baseUrl, fetch: fetchRecording }), urls };
  };
  /** Every event from the oldest kept, in one request. */
  const everything = async () => {
    const page = await client.events.list({ limit: 200 });
    expect(page.has_more).toBe(false);
    return page.data;
  };
  const load = async (records: Record<string, unknown>[]) => {
    await api.load(records);
    current = records;
  };

  beforeAll(async () => {
    api = await startEventsApi();
    client = new DomainIndex({ apiKey: api.apiKey, baseUrl: api.baseUrl });
    await load(FIRST);
    await load(SECOND);
  }, 120_000);
  afterAll(async () => {
    await api.close();
  });

  it('reads one page, typed, with the cursor to store', async () => {
    const page = await client.events.list({ limit: 3 });
    // a batch's events come in the order of the names
    expect(page.data.map(summary)).toEqual([
      ['source.loaded', null],
      ['listing.updated', 'bid-moves.com'],
      ['listing.added', 'brand-new.io'],
    ]);
    expect(page.data[0]!.data.listings_loaded).toBe(5);
    expect(page.data[1]!.data.previous_attributes).toMatchObject({ current_bid: 20, bid_count: 1 });
    expect(page.data[1]!.data.object).toMatchObject({ current_bid: 35, bid_count: 4 });
    expect(page).toMatchObject({ has_more: true, pagination: { page_size: 3, has_more: true } });
    expect(page.next_cursor).toMatch(/^\S+$/);
    expect(page.next_cursor).toBe(page.pagination.next_cursor);
  });

  it('iterates every event across pages, the same as one large page, and stops where has_more is false', async () => {
    const { client: counted, urls } = recording();
    const walked: Event[] = [];
    for await (const event of counted.events.list({ limit: 2 })) walked.push(event);
    const all = await everything();
    expect(all.map(summary)).toEqual([
      ['source.loaded', null],
      ['listing.updated', 'bid-moves.com'],
      ['listing.added', 'brand-new.io'],
      ['listing.removed', 'goes-away.org'],
      ['listing.added', 'newcomer.ai'],
      ['listing.updated', 'price-moves.net'],
      ['listing.added', 'third-new.com'],
    ]);
    expect(ids(walked)).toEqual(ids(all));
    expect(urls).toHaveLength(4);
    // maxItems and maxPages bound the walk
    const bounded: Event[] = [];
    for await (const event of client.events.list({ limit: 2 }, { maxItems: 3 })) bounded.push(event);
    expect(ids(bounded)).toEqual(ids(all).slice(0, 3));
    let pages = 0;
    for await (const _page of client.events.pages({ limit: 2 }, { maxPages: 2 })) pages += 1;
    expect(pages).toBe(2);
  });

  it('sends an array of types comma-separated, filters like a search, and takes the types as text too', async () => {
    const { client: recorded, urls } = recording();
    const added = await recorded.events.list({ type: ['listing.added', 'listing.removed'], limit: 50 });
    expect(added.data.map(summary)).toEqual([
      ['listing.added', 'brand-new.io'],
      ['listing.removed', 'goes-away.org'],
      ['listing.added', 'newcomer.ai'],
      ['listing.added', 'third-new.com'],
    ]);
    expect(new URL(urls[0]!).searchParams.get('type')).toBe('listing.added,listing.removed');
    const asText = await client.events.list({ type: 'listing.added,listing.removed', limit: 50 });
    expect(ids(asText.data)).toEqual(ids(added.data));
    const filtered = await client.events.list({ type: ['listing.added', 'listing.updated'], tld: 'io', max_price: 100 });
    expect(filtered.data.map(summary)).toEqual([['listing.added', 'brand-new.io']]);
  });

  it('resumes from a stored cursor in a new client: every event exactly once, in commit order, with imports in between', async () => {
    const seen: string[] = [];
    let stored: string | undefined;
    let pages = 0;
    // the first reader handles two pages, storing each page's cursor, then stops (a crash)
    for await (const page of recording().client.events.pages({ limit: 2 })) {
      seen.push(...ids(page.data));
      stored = page.next_cursor;
      pages += 1;
      if (pages === 2) break;
    }
    expect(seen).toHaveLength(4);
    // the index moves on while no one reads
    await load([...current.filter((record) => record.domain_name !== 'stays.com'), auction('while-away.com')]);
    await load([...current, auction('second-while-away.net')]);
    // a new client (a restarted process) that only has the stored cursor
    const restarted = recording().client;
    const resumed: EventPage[] = [];
    for await (const page of restarted.events.pages({ after: stored!, limit: 2 })) resumed.push(page);
    seen.push(...resumed.flatMap((page) => ids(page.data)));
    const all = await everything();
    expect(seen).toEqual(ids(all));
    expect(all.slice(-3).map(summary)).toEqual([
      ['listing.removed', 'stays.com'],
      ['listing.added', 'while-away.com'],
      ['listing.added', 'second-while-away.net'],
    ]);
    expect(seen.map(sequence)).toEqual([...seen.map(sequence)].sort((a, b) => a - b));
    // the last page's cursor is where the next reader starts: nothing is left after it
    expect(resumed.at(-1)!.has_more).toBe(false);
    expect((await client.events.list({ after: resumed.at(-1)!.next_cursor })).data).toEqual([]);
  });

  it('watches from now, hands an event imported while it waits to onEvents, and resolves with the cursor when aborted', async () => {
    const { client: recorded, urls } = recording();
    const controller = new AbortController();
    const calls: { events: Event[]; cursor: string }[] = [];
    const watching = recorded.events.watch(
      { type: ['listing.added'] },
      {
        signal: controller.signal,
        intervalMs: 100,
        onEvents: async (events, cursor) => {
          // awaited before the next request
          await new Promise((resolve) => setTimeout(resolve, 50));
          calls.push({ events, cursor });
        },
      },
    );
    // several polls of an empty feed, each from the cursor the previous one returned
    await until(() => urls.length >= 3, 'the watch polled three times');
    expect(new URL(urls[0]!).searchParams.get('after')).toBe('now');
    expect(new URL(urls[1]!).searchParams.get('after')).not.toBe('now');
    await load([...current, auction('fresh-while-watching.ai', { current_bid: 120 })]);
    await until(() => calls.length >= 1, 'onEvents got the new listing');
    controller.abort();
    const resumeFrom = await watching;
    expect(calls.map((call) => call.events.map(summary))).toEqual([[['listing.added', 'fresh-while-watching.ai']]]);
    expect(resumeFrom).toEqual(expect.any(String));
    const after = await client.events.list({ after: resumeFrom });
    expect(after.data).toEqual([]);
    // no request after the abort
    const sent = urls.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(urls).toHaveLength(sent);
  });

  it('stops at once when aborted during a request', async () => {
    const proxy = await startFlakyProxy(api.baseUrl);
    try {
      proxy.fail({ hang: true });
      const controller = new AbortController();
      const proxied = new DomainIndex({ apiKey: api.apiKey, baseUrl: proxy.baseUrl });
      const watching = proxied.events.watch({ after: 'now' }, { signal: controller.signal, onEvents: () => undefined });
      await until(() => proxy.requests.length === 1, 'the request reached the proxy');
      const abortedAt = Date.now();
      controller.abort();
      await expect(watching).resolves.toBe('now');
      // at the abort, not the client's 30 s timeout (the proxy never answers); the margin is a loaded machine's
      expect(Date.now() - abortedAt).toBeLessThan(15_000);
    } finally {
      await proxy.close();
    }
  });

  it('leaves no timer behind: a process that watched exits as soon as the watch is aborted', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'di-watch-'));
    try {
      const script = join(scratch, 'watch.mts');
      writeFileSync(
        script,
        `import { DomainIndex } from ${JSON.stringify(join(packageDir, 'src/index.ts'))};
const client = new DomainIndex({ apiKey: process.env.KEY, baseUrl: process.env.BASE_URL });
const controller = new AbortController();
let polls = 0;
const fetchCounting = async (input, init) => {
  polls += 1;
  const response = await fetch(input, init);
  // the watch is then waiting out its interval
  setTimeout(() => controller.abort(), 100);
  return response;
};
const watcher = new DomainIndex({ apiKey: process.env.KEY, baseUrl: process.env.BASE_URL, fetch: fetchCounting });
// ten minutes between polls, and a backoff as long: only a timer left behind could keep this process alive
await watcher.events.watch({}, { signal: controller.signal, intervalMs: 600_000, maxBackoffMs: 600_000, onEvents: () => undefined });
console.log(JSON.stringify({ polls, stats: typeof (await client.stats()).total }));
`,
      );
      const started = Date.now();
      const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script], {
          cwd: packageDir,
          env: { PATH: process.env.PATH ?? '', KEY: api.apiKey, BASE_URL: api.baseUrl },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.once('exit', (exitCode) => {
          clearTimeout(killer);
          resolve({ code: exitCode, stdout: out });
        });
      });
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ polls: 1, stats: 'number' });
      expect(Date.now() - started).toBeLessThan(25_000);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('retries a 503 with exponential backoff and jitter, then delivers the events it missed', async () => {
    const all = await everything();
    const beforeLast = (await client.events.list({ limit: all.length - 1 })).next_cursor;
    const proxy = await startFlakyProxy(api.baseUrl);
    try {
      proxy.fail({ status: 503, code: 'query_failed' }, { status: 503, code: 'query_failed' }, { status: 503, code: 'query_failed' });
      const controller = new AbortController();
      const received: Event[] = [];
      const proxied = new DomainIndex({ apiKey: api.apiKey, baseUrl: proxy.baseUrl });
      const watching = proxied.events.watch(
        { after: beforeLast },
        {
          signal: controller.signal,
          intervalMs: 60_000,
          onEvents: (events) => {
            received.push(...events);
            controller.abort();
          },
        },
      );
      await expect(watching).resolves.toEqual(expect.any(String));
      expect(ids(received)).toEqual([all.at(-1)!.id]);
      expect(proxy.requests.map((request) => request.outcome)).toEqual(['failed', 'failed', 'failed', 'forwarded']);
      const gaps = proxy.requests.slice(1).map((request, index) => request.at - proxy.requests[index]!.at);
      // 500 ms doubling per failure, half of it random: [250, 500], [500, 1000], [1000, 2000]
      [250, 500, 1000].forEach((least, index) => {
        expect(gaps[index], `wait ${index + 1}`).toBeGreaterThanOrEqual(least - 5);
        // its own backoff, not the 60 s interval (the margin is a loaded machine's)
        expect(gaps[index], `wait ${index + 1}`).toBeLessThan(least * 2 + 5_000);
      });
    } finally {
      await proxy.close();
    }
  });

  it("honours Retry-After on 429 and 503 over its own shorter backoff, and retries a dropped connection", async () => {
    const proxy = await startFlakyProxy(api.baseUrl);
    try {
      proxy.fail(
        { status: 429, code: 'rate_limited', headers: { 'retry-after': '3' } },
        { drop: true },
        { status: 503, code: 'rate_limit_unavailable', headers: { 'retry-after': '3' } },
      );
      const controller = new AbortController();
      const proxied = new DomainIndex({ apiKey: api.apiKey, baseUrl: proxy.baseUrl });
      const watching = proxied.events.watch({}, { signal: controller.signal, intervalMs: 60_000, maxBackoffMs: 40, onEvents: () => undefined });
      await until(() => proxy.requests.length === 4, 'the fourth attempt');
      controller.abort();
      await watching;
      expect(proxy.requests.map((request) => request.outcome)).toEqual(['failed', 'dropped', 'failed', 'forwarded']);
      const gaps = proxy.requests.slice(1).map((request, index) => request.at - proxy.requests[index]!.at);
      // Retry-After's 3 s, then its own 40 ms after the drop (well under 3 s on a loaded machine)
      expect(gaps[0]).toBeGreaterThanOrEqual(2_995);
      expect(gaps[1]).toBeLessThan(2_000);
      expect(gaps[2]).toBeGreaterThanOrEqual(2_995);
    } finally {
      await proxy.close();
    }
  });

  it('rejects at once, without retrying, on errors a retry cannot cure (401, 400)', async () => {
    const stranger = recording(api.baseUrl, 'dix_live_notarealkeyatallnotarealkeyatall00');
    const unauthorised = await stranger.client.events.watch({}, { intervalMs: 10, onEvents: () => undefined }).catch((error: unknown) => error);
    expect(unauthorised).toBeInstanceOf(AuthenticationError);
    expect(stranger.urls).toHaveLength(1);
    const { client: recorded, urls } = recording();
    const invalid = await recorded.events.watch({ min_price: 50, max_price: 10 }, { intervalMs: 10, onEvents: () => undefined }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_parameter', param: 'max_price' });
    expect(urls).toHaveLength(1);
    const wrongType = await client.events.list({ type: 'listing.sold' }).catch((error: unknown) => error);
    expect(wrongType).toMatchObject({ status: 400, code: 'invalid_parameter', param: 'type' });
  });

  it('stops the watch with the error its onEvents throws, without advancing past that page', async () => {
    const all = await everything();
    const beforeLast = (await client.events.list({ limit: all.length - 1 })).next_cursor;
    const failure = new Error('the database of the caller is down');
    await expect(client.events.watch({ after: beforeLast }, { intervalMs: 10, onEvents: () => Promise.reject(failure) })).rejects.toBe(failure);
  });

  it('throws a CursorExpiredError (410) for a cursor older than the events kept, from list and from watch', async () => {
    const old = (await client.events.list({ limit: 1 })).next_cursor;
    await api.expireEvents();
    const { client: recorded, urls } = recording();
    const expired = await recorded.events.list({ after: old }).catch((error: unknown) => error);
    expect(expired).toBeInstanceOf(CursorExpiredError);
    expect(expired).toBeInstanceOf(DomainIndexError);
    expect(expired).toMatchObject({ name: 'CursorExpiredError', status: 410, code: 'cursor_expired', param: undefined });
    expect((expired as CursorExpiredError).message).toMatch(/start again without after, or with after=now/);
    const watched = await recorded.events.watch({ after: old }, { intervalMs: 10, onEvents: () => undefined }).catch((error: unknown) => error);
    expect(watched).toBeInstanceOf(CursorExpiredError);
    expect(urls).toHaveLength(2);
    // as the error says: start again from now
    expect((await recorded.events.list({ after: 'now' })).data).toEqual([]);
  });
});
