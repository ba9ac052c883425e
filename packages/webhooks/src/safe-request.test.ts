import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import {
  connect,
  createServer as createTcpServer,
  type AddressInfo,
  type Server as TcpServer,
  type Socket,
} from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WEBHOOK_URL_REFUSED } from '@domain-index/contract';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_ALLOW_LIST, parseAllowedHosts, type AllowList } from './address-rules';
import {
  checkWebhookTarget,
  sendWebhookRequest,
  type Resolver,
  type WebhookAttempt,
} from './safe-request';
import { generateWebhookId, generateWebhookSecret, signWebhook } from './signing';

// Every receiver here listens on a loopback address; nothing connects anywhere else. Addresses
// outside loopback appear only as a resolver's answers, which are refused before any connection.

function allow(value: string): AllowList {
  const parsed = parseAllowedHosts(value);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.allowList;
}
const LOOPBACK = allow('127.0.0.0/8,::1');

/** A resolver with fixed answers, one list per call (the last repeats), counting its calls. */
function scriptedResolver(...answers: string[][]): Resolver & { calls: number } {
  const resolver = Object.assign(
    (_hostname: string) => {
      const answer = answers[Math.min(resolver.calls, answers.length - 1)] ?? [];
      resolver.calls += 1;
      return Promise.resolve(
        answer.map((address) => ({
          address,
          family: address.includes(':') ? (6 as const) : (4 as const),
        })),
      );
    },
    { calls: 0 },
  );
  return resolver;
}

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on a loopback address, counting every TCP connection it accepts. */
interface Receiver {
  readonly port: number;
  readonly received: Received[];
  readonly connections: number;
  close(): Promise<void>;
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function listen(
  server: Server | TcpServer,
  host: string,
): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const handle = {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  open.push(handle);
  return handle;
}

type Handler = (req: IncomingMessage, res: ServerResponse, received: Received) => void;

async function startReceiver(
  handler: Handler,
  host = '127.0.0.1',
  tls?: { key: string; cert: string },
): Promise<Receiver> {
  const received: Received[] = [];
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      handler(req, res, request);
    });
  };
  const server =
    tls === undefined ? createHttpServer(onRequest) : createHttpsServer(tls, onRequest);
  const handle = await listen(server, host);
  return {
    port: handle.port,
    received,
    get connections() {
      return handle.connections();
    },
    close: handle.close,
  };
}

/** Polls `check` until it holds; fails naming `what` after `ms`. */
async function until(what: string, check: () => boolean, ms = 5_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting until ${what}`);
}

const answer =
  (status: number, body = '', headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

const body = JSON.stringify({
  alert_id: 'alr_1',
  data: [{ id: 'evt_1', type: 'listing.created', data: { object: { domain_name: 'café.ai' } } }],
});

function expectFailure(attempt: WebhookAttempt, error: string, message?: string | RegExp): void {
  expect(attempt).toMatchObject({ outcome: 'failure', error });
  if (attempt.outcome !== 'failure') return;
  if (typeof message === 'string') expect(attempt.message).toBe(message);
  else if (message !== undefined) expect(attempt.message).toMatch(message);
}

/**
 * A refused target: the owner's message is the one generic sentence, naming no address, range or
 * host; what refused it is in `detail`, for the operator's log.
 */
function expectRefused(attempt: WebhookAttempt, error: string, detail: string | RegExp): void {
  expectFailure(attempt, error, WEBHOOK_URL_REFUSED);
  if (attempt.outcome !== 'failure') return;
  if (typeof detail === 'string') expect(attempt.detail).toBe(detail);
  else expect(attempt.detail).toMatch(detail);
}

describe('sending a webhook to a receiver', () => {
  it('POSTs the body byte for byte with its signature headers, which the receiver verifies', async () => {
    const receiver = await startReceiver(answer(200, 'thanks'));
    const secret = generateWebhookSecret();
    const headers = signWebhook({
      id: generateWebhookId(),
      timestamp: new Date(),
      body,
      secrets: [secret],
    });
    const attempt = await sendWebhookRequest(
      { url: `http://127.0.0.1:${receiver.port}/hooks?src=di`, body, headers },
      { allowList: LOOPBACK },
    );
    expect(attempt).toMatchObject({
      outcome: 'response',
      ok: true,
      status: 200,
      bodySnippet: 'thanks',
      responseBytes: 6,
      truncated: false,
      address: '127.0.0.1',
    });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    expect(attempt).not.toHaveProperty('retryAfterSeconds');
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request).toMatchObject({ method: 'POST', url: '/hooks?src=di', body });
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'domain-index-webhooks/1.0',
      ...headers,
    });
    expect(
      new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>),
    ).toEqual(JSON.parse(body));
  });

  it('keeps its own Host, Content-Length and encoding whatever headers the caller passes', async () => {
    const receiver = await startReceiver(answer(204));
    const attempt = await sendWebhookRequest(
      {
        url: `http://127.0.0.1:${receiver.port}/`,
        body,
        headers: { Host: 'evil.example', 'Content-Length': '1', 'X-Extra': 'yes' },
      },
      { allowList: LOOPBACK },
    );
    expect(attempt).toMatchObject({ outcome: 'response', ok: true, status: 204, bodySnippet: '' });
    expect(receiver.received[0]!.headers).toMatchObject({
      host: `127.0.0.1:${receiver.port}`,
      'x-extra': 'yes',
      'accept-encoding': 'identity',
    });
    expect(receiver.received[0]!.body).toBe(body);
  });

  it('reports a 500 as a failed answer with its status and the start of its body', async () => {
    const receiver = await startReceiver(answer(500, 'database is down'));
    const attempt = await sendWebhookRequest(
      { url: `http://127.0.0.1:${receiver.port}/`, body, headers: {} },
      { allowList: LOOPBACK },
    );
    expect(attempt).toMatchObject({
      outcome: 'response',
      ok: false,
      status: 500,
      bodySnippet: 'database is down',
    });
  });

  it.each([301, 302, 303, 307, 308])(
    'does not follow a %i redirect: one request, a failed answer with its status',
    async (status) => {
      const target = await startReceiver(answer(200));
      const receiver = await startReceiver(
        answer(status, 'moved', { location: `http://127.0.0.1:${target.port}/elsewhere` }),
      );
      const attempt = await sendWebhookRequest(
        { url: `http://127.0.0.1:${receiver.port}/`, body, headers: {} },
        { allowList: LOOPBACK },
      );
      expect(attempt).toMatchObject({
        outcome: 'response',
        ok: false,
        status,
        bodySnippet: 'moved',
      });
      expect(receiver.received).toHaveLength(1);
      expect(target.connections).toBe(0);
    },
  );

  it.each([
    [429, { 'retry-after': '120' }, 120],
    [503, { 'retry-after': 'Sat, 21 Nov 2026 07:05:00 GMT' }, 60],
    [429, {}, undefined],
    [503, { 'retry-after': 'later' }, undefined],
    [500, { 'retry-after': '120' }, undefined], // only 429 and 503 ask to wait
  ])('reads Retry-After of a %i %j as %j seconds', async (status, headers, seconds) => {
    const receiver = await startReceiver(answer(status, '', headers));
    const attempt = await sendWebhookRequest(
      { url: `http://127.0.0.1:${receiver.port}/`, body, headers: {} },
      { allowList: LOOPBACK, now: () => new Date('2026-11-21T07:04:00.000Z') },
    );
    expect(attempt).toMatchObject({ outcome: 'response', ok: false, status });
    if (seconds === undefined) expect(attempt).not.toHaveProperty('retryAfterSeconds');
    else expect(attempt).toMatchObject({ retryAfterSeconds: seconds });
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const receiver = await startReceiver(() => undefined); // never answers
    const attempt = await sendWebhookRequest(
      { url: `http://127.0.0.1:${receiver.port}/`, body, headers: {} },
      { allowList: LOOPBACK, timeoutMs: 300 },
    );
    expectFailure(
      attempt,
      'timeout',
      `no complete answer from 127.0.0.1:${receiver.port} within 300 ms`,
    );
    expect(attempt.durationMs).toBeGreaterThanOrEqual(290);
    expect(attempt.durationMs).toBeLessThan(5_000);
    expect(receiver.received).toHaveLength(1);
  });

  it('limits the whole attempt, not each read: a body trickling forever times out', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200);
      const tick = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(tick));
    });
    const attempt = await sendWebhookRequest(
      { url: `http://127.0.0.1:${receiver.port}/`, body, headers: {} },
      { allowList: LOOPBACK, timeoutMs: 500 },
    );
    expectFailure(attempt, 'timeout');
    expect(attempt.durationMs).toBeLessThan(5_000);
  });

  it('gives up on a receiver that accepts and sends no headers at the response limit, well before the whole attempt limit', async () => {
    const receiver = await startReceiver(() => undefined); // never answers
    const attempt = await sendWebhookRequest(
      { url: `http://127.0.0.1:${receiver.port}/`, body, headers: {} },
      { allowList: LOOPBACK, timeoutMs: 30_000, responseTimeoutMs: 300 },
    );
    expectFailure(
      attempt,
      'timeout',
      `no answer from 127.0.0.1:${receiver.port} within 300 ms of connecting`,
    );
    expect(attempt.durationMs).toBeGreaterThanOrEqual(290);
    expect(attempt.durationMs).toBeLessThan(15_000); // not the 30 s whole-attempt limit
    expect(receiver.received).toHaveLength(1);
  });

  it('limits the wait for the headers only: a body that takes longer than the response limit is read', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200);
      res.write('slow');
      setTimeout(() => res.end(' but complete'), 600);
    });
    const attempt = await sendWebhookRequest(
      { url: `http://127.0.0.1:${receiver.port}/`, body, headers: {} },
      { allowList: LOOPBACK, timeoutMs: 5_000, responseTimeoutMs: 200 },
    );
    expect(attempt).toMatchObject({ outcome: 'response', ok: true, status: 200, bodySnippet: 'slow but complete' });
  });

  it.skipIf(spawnSync('python3', ['--version']).status !== 0)(
    'gives up on a connection never accepted (the listen queue is full) at the connect limit',
    async () => {
      // python's listen(0) never accepts: once one connection fills its queue, loopback drops further SYNs
      const listener = spawn('python3', ['-c', "import socket, time\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen(0)\nprint(s.getsockname()[1], flush=True)\ntime.sleep(30)"]);
      try {
        const port = await new Promise<number>((resolve) => listener.stdout.once('data', (data: Buffer) => resolve(Number(data.toString().trim()))));
        const filler = connect(port, '127.0.0.1');
        await new Promise((resolve) => filler.once('connect', resolve));
        const attempt = await sendWebhookRequest(
          { url: `http://127.0.0.1:${port}/`, body, headers: {} },
          { allowList: LOOPBACK, timeoutMs: 30_000, connectTimeoutMs: 300 },
        );
        filler.destroy();
        expectFailure(attempt, 'timeout', `could not connect to 127.0.0.1:${port} within 300 ms`);
        expect(attempt.durationMs).toBeGreaterThanOrEqual(290);
        expect(attempt.durationMs).toBeLessThan(15_000); // not the 30 s whole-attempt limit
      } finally {
        listener.kill();
      }
    },
  );

  it('reads at most 64 KB of a 10 MB answer and drops the connection', async () => {
    const total = 10 * 1024 * 1024;
    let written = 0;
    let finished = false;
    let closed = false;
    const receiver = await startReceiver((_req, res) => {
      const chunk = Buffer.alloc(64 * 1024, 'a');
      res.writeHead(200, { 'content-length': String(total) });
      const pump = () => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end(() => (finished = true));
      };
      res.on('close', () => (closed = true));
      pump();
    });
    const attempt = await sendWebhookRequest(
      { url: `http://127.0.0.1:${receiver.port}/`, body, headers: {} },
      { allowList: LOOPBACK },
    );
    expect(attempt).toMatchObject({
      outcome: 'response',
      ok: true,
      status: 200,
      responseBytes: 64 * 1024,
      truncated: true,
    });
    expect(attempt.outcome === 'response' && attempt.bodySnippet).toBe('a'.repeat(1024));
    await until('the receiver sees its answer broken off', () => closed);
    expect(finished).toBe(false);
    expect(written).toBeLessThan(total);
  });

  it('keeps a whole UTF-8 text of the first 1 KB, leaving off a character the cut would split, and no NUL', async () => {
    const text = `\0${'é'.repeat(600)}`; // 1 + 1200 bytes: byte 1024 is the middle of an é
    const receiver = await startReceiver(answer(400, text));
    const attempt = await sendWebhookRequest(
      { url: `http://127.0.0.1:${receiver.port}/`, body, headers: {} },
      { allowList: LOOPBACK },
    );
    expect(attempt).toMatchObject({
      outcome: 'response',
      status: 400,
      responseBytes: 1201,
      truncated: false,
      bodySnippet: `\uFFFD${'é'.repeat(511)}`,
    });
  });

  it('sends the credentials of a URL as Basic authentication and never shows them', async () => {
    const receiver = await startReceiver(answer(200));
    const attempt = await sendWebhookRequest(
      { url: `http://hook:pa%20ss@127.0.0.1:${receiver.port}/`, body, headers: {} },
      { allowList: LOOPBACK },
    );
    expect(attempt).toMatchObject({ outcome: 'response', ok: true });
    expect(receiver.received[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('hook:pa ss').toString('base64')}`,
    );
    const broken = await sendWebhookRequest(
      { url: `http://hook:100%zz@127.0.0.1:${receiver.port}/`, body, headers: {} },
      { allowList: LOOPBACK },
    );
    expect(broken).toMatchObject({ outcome: 'response', ok: true });
    expect(receiver.received[1]!.headers.authorization).toBe(
      `Basic ${Buffer.from('hook:100%zz').toString('base64')}`,
    );
  });
});

describe('failures an attempt reports instead of throwing', () => {
  it('a closed port is a connection failure', async () => {
    const closed = await listen(createTcpServer(), '127.0.0.1');
    await closed.close();
    const attempt = await sendWebhookRequest(
      { url: `http://127.0.0.1:${closed.port}/`, body, headers: {} },
      { allowList: LOOPBACK },
    );
    expectFailure(
      attempt,
      'connection',
      `could not deliver to 127.0.0.1:${closed.port}: connection refused`,
    );
  });

  it('a receiver that hangs up without answering is a connection failure', async () => {
    const server = createTcpServer((socket) => socket.once('data', () => socket.destroy()));
    const handle = await listen(server, '127.0.0.1');
    const attempt = await sendWebhookRequest(
      { url: `http://127.0.0.1:${handle.port}/`, body, headers: {} },
      { allowList: LOOPBACK },
    );
    expectFailure(
      attempt,
      'connection',
      /^could not deliver to 127\.0\.0\.1:\d+ \(127\.0\.0\.1\): connection (reset|closed while sending)$/,
    );
  });

  it('an answer that is not HTTP is an invalid response', async () => {
    const server = createTcpServer((socket) =>
      socket.once('data', () => socket.end('HELLO THERE\r\n\r\n')),
    );
    const handle = await listen(server, '127.0.0.1');
    const attempt = await sendWebhookRequest(
      { url: `http://127.0.0.1:${handle.port}/`, body, headers: {} },
      { allowList: LOOPBACK },
    );
    expectFailure(
      attempt,
      'invalid_response',
      `127.0.0.1:${handle.port} (127.0.0.1) answered with a malformed HTTP response`,
    );
  });

  it('https to a server that does not speak TLS is a TLS failure', async () => {
    const receiver = await startReceiver(answer(200));
    const attempt = await sendWebhookRequest(
      { url: `https://127.0.0.1:${receiver.port}/`, body, headers: {} },
      { allowList: LOOPBACK },
    );
    expectFailure(attempt, 'tls', /^TLS with 127\.0\.0\.1:\d+ \(127\.0\.0\.1\) failed: /);
  });

  it('a name that does not resolve is a DNS failure', async () => {
    const missing = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), {
      code: 'ENOTFOUND',
    });
    const attempt = await sendWebhookRequest(
      { url: 'https://nowhere.test/hook', body, headers: {} },
      { allowList: LOOPBACK, resolve: () => Promise.reject(missing) },
    );
    expectRefused(attempt, 'dns', 'nowhere.test could not be resolved: no such host');
    const empty = await sendWebhookRequest(
      { url: 'https://nowhere.test/hook', body, headers: {} },
      { allowList: LOOPBACK, resolve: scriptedResolver([]) },
    );
    expectRefused(empty, 'dns', 'nowhere.test has no address');
  });

  it('a resolver slower than the whole attempt is a timeout', async () => {
    const attempt = await sendWebhookRequest(
      { url: 'https://slow.test/hook', body, headers: {} },
      { allowList: LOOPBACK, timeoutMs: 200, resolve: () => new Promise(() => undefined) },
    );
    expectFailure(attempt, 'timeout', 'resolving slow.test took too long (limit 200 ms)');
  });

  it.each([
    ['not a url', 'invalid_url', 'the webhook URL is not a valid absolute URL'],
    ['/relative/path', 'invalid_url', 'the webhook URL is not a valid absolute URL'],
    ['ftp://hooks.example.com/', 'invalid_url', 'the webhook URL must start with https://'],
    ['file:///etc/passwd', 'invalid_url', 'the webhook URL must start with https://'],
    ['javascript:alert(1)', 'invalid_url', 'the webhook URL must start with https://'],
    [
      `https://hooks.example.com/${'a'.repeat(2048)}`,
      'invalid_url',
      'the webhook URL is longer than 2048 characters',
    ],
  ])('%j is refused: %s', async (url, error, message) => {
    const resolver = scriptedResolver(['93.184.215.14']);
    const attempt = await sendWebhookRequest(
      { url, body, headers: {} },
      { allowList: EMPTY_ALLOW_LIST, resolve: resolver },
    );
    expectFailure(attempt, error, message);
    expect(resolver.calls).toBe(0);
  });

  it('plain http is refused with the generic answer before any lookup', async () => {
    const resolver = scriptedResolver(['93.184.215.14']);
    const attempt = await sendWebhookRequest(
      { url: 'http://hooks.example.com/', body, headers: {} },
      { allowList: EMPTY_ALLOW_LIST, resolve: resolver },
    );
    expectRefused(
      attempt,
      'insecure_url',
      'the webhook URL must use https (plain http only to hosts the operator allow-lists): hooks.example.com',
    );
    expect(resolver.calls).toBe(0);
  });
});

describe('addresses refused before any connection', () => {
  it('127.0.0.2, [::1] and localhost, when the allow-list does not hold them', async () => {
    const on127002 = await listen(createTcpServer(), '127.0.0.2');
    const onIpv6 = await listen(createTcpServer(), '::1');
    const onLocalhost = await listen(createTcpServer(), '127.0.0.1');
    const cases: [string, RegExp][] = [
      [
        `https://127.0.0.2:${on127002.port}/`,
        /^127\.0\.0\.2 is a loopback address \(127\.0\.0\.0\/8\): webhooks are not sent there$/,
      ],
      [
        `https://[::1]:${onIpv6.port}/`,
        /^::1 is a loopback address \(::1\/128\): webhooks are not sent there$/,
      ],
      // `localhost` through the system resolver (the hosts file): refused for what it resolves to.
      [
        `https://localhost:${onLocalhost.port}/`,
        /^localhost resolves to (127\.0\.0\.1|::1), a loopback address \((127\.0\.0\.0\/8|::1\/128)\): webhooks are not sent there$/,
      ],
    ];
    for (const [url, message] of cases) {
      expectRefused(
        await sendWebhookRequest({ url, body, headers: {} }, { allowList: EMPTY_ALLOW_LIST }),
        'refused_address',
        message,
      );
    }
    expect([on127002.connections(), onIpv6.connections(), onLocalhost.connections()]).toEqual([
      0, 0, 0,
    ]);
  });

  it('the same hosts go through once allow-listed (by CIDR, or by name for localhost)', async () => {
    const on127002 = await startReceiver(answer(200), '127.0.0.2');
    const onIpv6 = await startReceiver(answer(200), '::1');
    const viaName = await sendWebhookRequest(
      { url: `http://localhost:${on127002.port}/`, body, headers: {} },
      { allowList: allow('localhost'), resolve: scriptedResolver(['127.0.0.2']) },
    );
    expect(viaName).toMatchObject({ outcome: 'response', ok: true, address: '127.0.0.2' });
    const viaCidr = await sendWebhookRequest(
      { url: `http://[::1]:${onIpv6.port}/`, body, headers: {} },
      { allowList: allow('::1/128') },
    );
    expect(viaCidr).toMatchObject({ outcome: 'response', ok: true, address: '::1' });
    expect(on127002.received).toHaveLength(1);
    expect(onIpv6.received).toHaveLength(1);
  });

  it('an allow-list entry with a port lets through that port only: another port of the same host is refused without connecting', async () => {
    const receiver = await startReceiver(answer(200));
    const other = await listen(createTcpServer(), '127.0.0.1');
    const list = allow(`127.0.0.1:${receiver.port},receiver.test:${receiver.port}`);
    for (const url of [`http://127.0.0.1:${receiver.port}/`, `http://receiver.test:${receiver.port}/`]) {
      const attempt = await sendWebhookRequest({ url, body, headers: {} }, { allowList: list, resolve: scriptedResolver(['127.0.0.1']) });
      expect(attempt, url).toMatchObject({ outcome: 'response', ok: true });
    }
    for (const url of [`https://127.0.0.1:${other.port}/`, `https://receiver.test:${other.port}/`]) {
      const attempt = await sendWebhookRequest({ url, body, headers: {} }, { allowList: list, resolve: scriptedResolver(['127.0.0.1']) });
      expectRefused(attempt, 'refused_address', /127\.0\.0\.1 is a loopback|resolves to 127\.0\.0\.1, a loopback/);
    }
    // plain http is allowed for the listed port only, even to a public address
    expectRefused(
      await sendWebhookRequest({ url: `http://receiver.test:${other.port}/`, body, headers: {} }, { allowList: allow(`receiver.test:${receiver.port}`), resolve: scriptedResolver(['93.184.215.14']) }),
      'insecure_url',
      /must use https/,
    );
    expect(receiver.received).toHaveLength(2);
    expect(other.connections()).toBe(0);
    await other.close();
  });

  it('a name is refused when ANY of its addresses is refused', async () => {
    const receiver = await startReceiver(answer(200));
    const attempt = await sendWebhookRequest(
      { url: `http://receiver.test:${receiver.port}/`, body, headers: {} },
      { allowList: LOOPBACK, resolve: scriptedResolver(['127.0.0.1', '10.0.0.1']) },
    );
    expectRefused(
      attempt,
      'refused_address',
      'receiver.test resolves to 10.0.0.1, a private address (10.0.0.0/8): webhooks are not sent there',
    );
    expect(receiver.connections).toBe(0);
  });

  it.each([
    ['169.254.169.254', 'a link-local address (169.254.0.0/16)'],
    ['::ffff:169.254.169.254', 'a link-local address (169.254.0.0/16)'],
    ['64:ff9b::a9fe:a9fe', 'a link-local address (169.254.0.0/16)'],
    ['192.168.1.1', 'a private address (192.168.0.0/16)'],
    ['fd00::1', 'a private address (fc00::/7)'],
    ['224.0.0.251', 'a multicast address (224.0.0.0/4)'],
    ['100.64.0.1', 'a carrier-grade NAT address (100.64.0.0/10)'],
    ['0.0.0.0', 'an unspecified address (0.0.0.0/8)'],
  ])('a name resolving to %s is refused without connecting', async (address, what) => {
    const attempt = await sendWebhookRequest(
      { url: 'https://hooks.example.com/in', body, headers: {} },
      { allowList: EMPTY_ALLOW_LIST, resolve: scriptedResolver([address]) },
    );
    expectRefused(
      attempt,
      'refused_address',
      `hooks.example.com resolves to ${address}, ${what}: webhooks are not sent there`,
    );
  });

  it('an allowed name that later resolves elsewhere is refused at send (no DNS rebinding)', async () => {
    const receiver = await startReceiver(answer(200));
    const resolver = scriptedResolver(['127.0.0.1'], ['10.0.0.1']);
    const url = `http://receiver.test:${receiver.port}/hook`;
    // When the alert is saved: the name resolves to an allow-listed address.
    const saved = await checkWebhookTarget(url, {
      allowList: allow('127.0.0.0/8'),
      resolve: resolver,
    });
    expect(saved).toMatchObject({ ok: true, addresses: [{ address: '127.0.0.1', family: 4 }] });
    // When a delivery is sent, the same name answers 10.0.0.1.
    const attempt = await sendWebhookRequest(
      { url, body, headers: {} },
      { allowList: allow('127.0.0.0/8'), resolve: resolver },
    );
    expectRefused(
      attempt,
      'refused_address',
      'receiver.test resolves to 10.0.0.1, a private address (10.0.0.0/8): webhooks are not sent there',
    );
    expect(resolver.calls).toBe(2);
    expect(receiver.connections).toBe(0);
  });

  it('connects to the address that was checked, with the URL host as Host', async () => {
    const receiver = await startReceiver(answer(200));
    const attempt = await sendWebhookRequest(
      { url: `http://receiver.test:${receiver.port}/hook`, body, headers: {} },
      { allowList: allow('127.0.0.0/8'), resolve: scriptedResolver(['127.0.0.1']) },
    );
    expect(attempt).toMatchObject({ outcome: 'response', ok: true, address: '127.0.0.1' });
    expect(receiver.received[0]!.headers.host).toBe(`receiver.test:${receiver.port}`);
  });

  it('never shows the path, query or credentials of the URL in a failure', async () => {
    const attempt = await sendWebhookRequest(
      { url: 'https://user:hunter2@hooks.example.com/T0KEN-in-path?key=s3cr3t', body, headers: {} },
      { allowList: EMPTY_ALLOW_LIST, resolve: scriptedResolver(['10.1.2.3']) },
    );
    expectRefused(attempt, 'refused_address', /10\.1\.2\.3/);
    expect(JSON.stringify(attempt)).not.toMatch(/hunter2|T0KEN|s3cr3t|user/);
  });
});

describe('what the target check decides, without connecting', () => {
  it.each<[string, string[], string, object]>([
    ['https://hooks.example.com/in', ['93.184.215.14'], '', { ok: true }],
    ['https://hooks.example.com/in', ['2606:4700:4700::1111', '93.184.215.14'], '', { ok: true }],
    [
      'http://hooks.example.com/in',
      ['93.184.215.14'],
      '127.0.0.0/8',
      { ok: false, error: 'insecure_url' },
    ],
    [
      'http://hooks.example.com/in',
      ['127.0.0.1', '93.184.215.14'],
      '127.0.0.0/8',
      { ok: false, error: 'insecure_url' },
    ],
    ['http://hooks.example.com/in', ['93.184.215.14'], 'hooks.example.com', { ok: true }],
    ['http://receiver.test/in', ['127.0.0.1'], '127.0.0.0/8', { ok: true }],
    ['https://receiver.test/in', ['127.0.0.1'], '', { ok: false, error: 'refused_address' }],
    ['https://RECEIVER.test./in', ['10.0.0.7'], 'receiver.test', { ok: true }],
    ['https://[::ffff:7f00:1]/in', [], '', { ok: false, error: 'refused_address' }],
    ['https://0x7f.1/in', [], '', { ok: false, error: 'refused_address' }], // the URL parser reads it as 127.0.0.1
    ['https://2130706433/in', [], '', { ok: false, error: 'refused_address' }],
    ['https://[fe80::1]/in', [], '', { ok: false, error: 'refused_address' }],
  ])('%s resolving to %j with allow-list %j', async (url, addresses, allowed, expected) => {
    const result = await checkWebhookTarget(url, {
      allowList: allow(allowed),
      resolve: scriptedResolver(addresses),
    });
    expect(result).toMatchObject(expected);
  });

  it('answers every refused address form, name and scheme with the one generic message, the reason kept for the operator', async () => {
    const nxdomain = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    const cases: [string, Resolver][] = [
      ['https://127.0.0.1/in', scriptedResolver()],
      ['https://127.1/in', scriptedResolver()],
      ['https://0x7f000001/in', scriptedResolver()],
      ['https://2130706433/in', scriptedResolver()],
      ['https://0177.0.0.1/in', scriptedResolver()],
      ['https://[::1]/in', scriptedResolver()],
      ['https://[::ffff:10.0.0.1]/in', scriptedResolver()],
      ['https://[64:ff9b::a9fe:a9fe]/in', scriptedResolver()],
      ['https://[fe80::1]/in', scriptedResolver()],
      ['https://[fd00::1]/in', scriptedResolver()],
      ['https://169.254.169.254/latest/meta-data', scriptedResolver()],
      ['https://hooks.example.com/in', scriptedResolver(['93.184.215.14', '192.168.1.1'])],
      ['https://hooks.example.com/in', scriptedResolver(['::ffff:127.0.0.1'])],
      ['https://hooks.example.com/in', scriptedResolver([])],
      ['https://hooks.example.com/in', () => Promise.reject(nxdomain)],
      ['http://hooks.example.com/in', scriptedResolver(['93.184.215.14'])],
    ];
    for (const [url, resolve] of cases) {
      const result = await checkWebhookTarget(url, { allowList: EMPTY_ALLOW_LIST, resolve });
      expect(result, url).toMatchObject({ ok: false, message: WEBHOOK_URL_REFUSED });
      expect(result, url).toHaveProperty('detail', expect.any(String));
    }
    expect(WEBHOOK_URL_REFUSED).not.toMatch(/\d|::|\//);
  });

  it('waits for a slow resolver when given no deadline, and gives up at a deadline', async () => {
    const slow: Resolver = () => new Promise((resolve) => setTimeout(() => resolve([{ address: '93.184.215.14', family: 4 }]), 50));
    await expect(checkWebhookTarget('https://hooks.example.com/in', { allowList: EMPTY_ALLOW_LIST, resolve: slow })).resolves.toMatchObject({ ok: true });
    await expect(checkWebhookTarget('https://hooks.example.com/in', { allowList: EMPTY_ALLOW_LIST, resolve: slow, deadline: performance.now() + 5 })).resolves.toMatchObject({
      ok: false,
      error: 'timeout',
    });
  });
});

describe('https to a receiver with a certificate', () => {
  let dir: string;
  const tls = { receiver: { key: '', cert: '' }, other: { key: '', cert: '' } };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-tls-'));
    for (const name of ['receiver', 'other'] as const) {
      const key = join(dir, `${name}.key`);
      const cert = join(dir, `${name}.crt`);
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '1',
          '-keyout',
          key,
          '-out',
          cert,
          '-subj',
          `/CN=${name}.test`,
          '-addext',
          `subjectAltName=DNS:${name}.test`,
        ],
        { stdio: 'ignore' },
      );
      tls[name] = { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('verifies the certificate against the URL host name while connecting to the checked address', async () => {
    const receiver = await startReceiver(answer(200, 'secure'), '127.0.0.1', tls.receiver);
    const attempt = await sendWebhookRequest(
      { url: `https://receiver.test:${receiver.port}/hook`, body, headers: {} },
      {
        allowList: allow('127.0.0.0/8'),
        resolve: scriptedResolver(['127.0.0.1']),
        ca: tls.receiver.cert,
      },
    );
    expect(attempt).toMatchObject({
      outcome: 'response',
      ok: true,
      status: 200,
      bodySnippet: 'secure',
      address: '127.0.0.1',
    });
  });

  it('refuses a certificate for another name', async () => {
    const receiver = await startReceiver(answer(200), '127.0.0.1', tls.other);
    const attempt = await sendWebhookRequest(
      { url: `https://receiver.test:${receiver.port}/hook`, body, headers: {} },
      {
        allowList: allow('127.0.0.0/8'),
        resolve: scriptedResolver(['127.0.0.1']),
        ca: tls.other.cert,
      },
    );
    expectFailure(attempt, 'tls', /certificate|altnames/i);
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses a certificate no trusted authority signed', async () => {
    const receiver = await startReceiver(answer(200), '127.0.0.1', tls.receiver);
    const attempt = await sendWebhookRequest(
      { url: `https://receiver.test:${receiver.port}/hook`, body, headers: {} },
      { allowList: allow('127.0.0.0/8'), resolve: scriptedResolver(['127.0.0.1']) },
    );
    expectFailure(attempt, 'tls', /self-signed certificate/);
    expect(receiver.received).toHaveLength(0);
  });
});
