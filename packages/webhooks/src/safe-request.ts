import { lookup as dnsLookup } from 'node:dns/promises';
import {
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  decideDestination,
  isHostAllowListed,
  isIpLiteral,
  type AllowList,
  type RefusedCategory,
} from './address-rules';
import { WEBHOOK_URL_REFUSED } from '@domain-index/contract';
import { parseRetryAfter } from './retry-after';

/** One address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses; the system's (getaddrinfo, as browsers use) unless a test injects one. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver: every address, in the order the system gives them. */
export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

/** Longest a webhook request may take, from resolving its host to the last byte read. */
export const WEBHOOK_TIMEOUT_MS = 15_000;
/** Longest the connection (and its TLS handshake) may take once the host is resolved. */
export const WEBHOOK_CONNECT_TIMEOUT_MS = 3_000;
/** Longest the receiver may take, once connected, to send its status line and headers. */
export const WEBHOOK_RESPONSE_TIMEOUT_MS = 10_000;
/** Most of a response read back; the rest is never read. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of the response body the delivery log keeps. */
export const SNIPPET_BYTES = 1024;
/** Longest webhook URL accepted. */
export const MAX_URL_LENGTH = 2048;

const USER_AGENT = 'domain-index-webhooks/1.0';

/** Why an attempt got no HTTP response. */
export type WebhookFailureKind =
  | 'invalid_url'
  | 'insecure_url'
  | 'refused_address'
  | 'dns'
  | 'connection'
  | 'tls'
  | 'timeout'
  | 'invalid_response';

/**
 * An attempt that got no HTTP response; `message` names the host at most, never the URL's path,
 * query or credentials, and a refused target is WEBHOOK_URL_REFUSED whatever refused it.
 */
export interface WebhookFailure {
  outcome: 'failure';
  error: WebhookFailureKind;
  /** What the owner may read (the delivery log). */
  message: string;
  /** For the operator's log only: which address or range refused the target. Never stored where the owner reads. */
  detail?: string;
  durationMs: number;
}

/** An attempt the receiver answered: `ok` for 2xx only (a redirect is not followed and not a success). */
export interface WebhookResponse {
  outcome: 'response';
  ok: boolean;
  status: number;
  durationMs: number;
  /** The first SNIPPET_BYTES of the body as UTF-8 text (a cut character left off, NUL replaced). */
  bodySnippet: string;
  /** Bytes of the body read, at most MAX_RESPONSE_BYTES. */
  responseBytes: number;
  /** True when the body went on past MAX_RESPONSE_BYTES and was cut there. */
  truncated: boolean;
  /** From a 429's or 503's Retry-After (whole seconds or an HTTP date). */
  retryAfterSeconds?: number;
  /** The address the request went to: one of those checked. */
  address: string;
}

export type WebhookAttempt = WebhookResponse | WebhookFailure;

/** What decides where a webhook may go. */
export interface TargetOptions {
  allowList: AllowList;
  resolve?: Resolver;
}

/** A URL that may receive webhooks now, and the checked addresses a request must go to. */
export interface CheckedTarget {
  ok: true;
  url: URL;
  addresses: readonly ResolvedAddress[];
}

/** A URL that may not receive webhooks: `message` for its owner, `detail` (when there is more to say) for the operator only. */
export type Refusal = { ok: false; error: WebhookFailureKind; message: string; detail?: string };

/**
 * A refused target as its owner is told: one message for every address form, name and scheme
 * refused (no address, range or DNS answer in it, so the answer cannot map a network); what
 * refused it goes to `detail`, for the operator.
 */
const refusedTarget = (error: WebhookFailureKind, detail: string): Refusal => ({ ok: false, error, message: WEBHOOK_URL_REFUSED, detail });

/** The port a request to the URL goes to: its own, or its scheme's. */
function portOf(url: URL): number {
  return url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
}

/** A URL's host without the brackets of an IPv6 literal, as sockets and resolvers take it. */
function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Checks the form of a webhook URL: absolute http(s), a host, at most MAX_URL_LENGTH characters.
 * Whether plain http is allowed depends on the allow-list and is decided with the addresses.
 */
export function parseWebhookUrl(text: string): { ok: true; url: URL } | Refusal {
  const invalid = (message: string): Refusal => ({ ok: false, error: 'invalid_url', message });
  if (text.length > MAX_URL_LENGTH)
    return invalid(`the webhook URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return invalid('the webhook URL is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return invalid('the webhook URL must start with https://');
  if (url.hostname === '') return invalid('the webhook URL has no host');
  return { ok: true, url };
}

const CATEGORY_TEXT: Record<RefusedCategory, string> = {
  unspecified: 'an unspecified',
  loopback: 'a loopback',
  private: 'a private',
  carrier_grade_nat: 'a carrier-grade NAT',
  link_local: 'a link-local',
  multicast: 'a multicast',
  broadcast: 'the broadcast',
  documentation: 'a documentation',
  benchmarking: 'a benchmarking',
  reserved: 'a reserved',
};

/** Resolves `promise` unless `deadline` (ms since performance's origin) passes first; no deadline waits. */
async function beforeDeadline<T>(promise: Promise<T>, deadline: number | undefined): Promise<T | 'timeout'> {
  // setTimeout takes an infinite (or over 2^31 ms) delay as 1 ms: without a deadline, do not race at all
  if (deadline === undefined) return promise;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>(
    (resolve) =>
      (timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - performance.now()))),
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The URL's host resolved and every address judged: refused when ANY address is refused by the
 * address rules and not allow-listed (a host name on the allow-list permits all its addresses);
 * plain http only when the host is allow-listed by name, or every address by the allow-list.
 * Every such refusal (and a name that does not resolve) has the one message WEBHOOK_URL_REFUSED,
 * its reason in `detail`. Call it when a webhook URL is saved; sendWebhookRequest checks again at
 * every send.
 */
export async function checkWebhookTarget(
  text: string,
  options: TargetOptions & { deadline?: number },
): Promise<CheckedTarget | Refusal> {
  const parsed = parseWebhookUrl(text);
  if (!parsed.ok) return parsed;
  const { url } = parsed;
  const host = bareHost(url);
  const insecure = refusedTarget('insecure_url', `the webhook URL must use https (plain http only to hosts the operator allow-lists): ${url.host}`);
  const port = portOf(url);
  const named = isHostAllowListed(options.allowList, url.hostname, port);
  // Decided before any lookup when nothing on the allow-list could permit it.
  if (url.protocol === 'http:' && !named && options.allowList.ranges.length === 0) return insecure;

  let addresses: readonly ResolvedAddress[];
  if (isIpLiteral(host)) {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    const resolving = (options.resolve ?? systemResolver)(host).then(
      (found) => ({ found }),
      (error: unknown) => ({ error }),
    );
    const answer = await beforeDeadline(resolving, options.deadline);
    if (answer === 'timeout')
      return { ok: false, error: 'timeout', message: `resolving ${host} took too long` };
    // A name that does not resolve gets the same answer as one that resolves to a refused
    // address: otherwise the difference would tell which names exist on this service's network.
    if ('error' in answer) return refusedTarget('dns', `${host} could not be resolved${dnsReason(answer.error)}`);
    if (answer.found.length === 0) return refusedTarget('dns', `${host} has no address`);
    addresses = answer.found;
  }

  let allAllowListed = true;
  for (const { address } of addresses) {
    const decision = decideDestination(options.allowList, url.hostname, address, port);
    if (!decision.permitted) {
      const { category, range } = decision.verdict;
      const what = `${CATEGORY_TEXT[category]} address (${range})`;
      const subject = isIpLiteral(host) ? `${address} is` : `${host} resolves to ${address},`;
      return refusedTarget('refused_address', `${subject} ${what}: webhooks are not sent there`);
    }
    if (decision.by !== 'allow-list') allAllowListed = false;
  }
  if (url.protocol === 'http:' && !named && !allAllowListed) return insecure;
  return { ok: true, url, addresses };
}

function dnsReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOTFOUND') return ': no such host';
  if (code === 'EAI_AGAIN') return ': temporary DNS failure';
  return '';
}

/** A `lookup` that answers only with the addresses already checked, so DNS cannot change them in between. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = addresses.filter(
      ({ family }) => wanted === undefined || wanted === 0 || wanted === family,
    );
    const [first] = usable;
    if (first === undefined) {
      callback(
        Object.assign(new Error('no checked address of the requested family'), {
          code: 'ENOTFOUND',
        }),
        '',
        0,
      );
    } else if (options.all === true) {
      callback(
        null,
        usable.map(({ address, family }) => ({ address, family })),
      );
    } else {
      callback(null, first.address, first.family);
    }
  };
}

const TLS_CODES =
  /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

const CONNECTION_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
};

/** Sending options: where it may go, and the limits of one attempt. */
export interface SendOptions extends TargetOptions {
  /** Whole attempt, resolution included; WEBHOOK_TIMEOUT_MS by default. */
  timeoutMs?: number;
  /** From the request's start (resolution done) to a connection ready to send, TLS included; WEBHOOK_CONNECT_TIMEOUT_MS by default. */
  connectTimeoutMs?: number;
  /** From the connection ready to the response's headers (its first byte); WEBHOOK_RESPONSE_TIMEOUT_MS by default. */
  responseTimeoutMs?: number;
  /** MAX_RESPONSE_BYTES by default. */
  maxResponseBytes?: number;
  /** Wall clock for a Retry-After date. */
  now?: () => Date;
  /** Certificate authorities (PEM) trusted in place of the system's: a private CA, or a test's. */
  ca?: string;
}

/**
 * Sends one webhook: a POST of `body` with `headers` (the signature headers) to `url`. The host
 * is resolved and checked (checkWebhookTarget) and the connection goes to exactly the addresses
 * checked. Redirects are not followed; the whole attempt has `timeoutMs`, the connection
 * `connectTimeoutMs` and the answer's headers `responseTimeoutMs` within it (a receiver that
 * never answers holds a sender for the shorter); at most `maxResponseBytes` of the answer are read. Never throws for anything the network or the
 * receiver does: every outcome is a WebhookResponse or a classified WebhookFailure.
 */
export async function sendWebhookRequest(
  request: { url: string; body: string; headers: Readonly<Record<string, string>> },
  options: SendOptions,
): Promise<WebhookAttempt> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const deadline = started + timeoutMs;
  const elapsed = () => Math.round(performance.now() - started);
  const failure = (error: WebhookFailureKind, message: string, detail?: string): WebhookFailure => ({
    outcome: 'failure',
    error,
    message,
    ...(detail === undefined ? {} : { detail }),
    durationMs: elapsed(),
  });

  const target = await checkWebhookTarget(request.url, { ...options, deadline });
  if (!target.ok)
    return failure(
      target.error,
      target.error === 'timeout' ? `${target.message} (limit ${timeoutMs} ms)` : target.message,
      target.detail,
    );
  const { url, addresses } = target;
  const host = bareHost(url);
  const https = url.protocol === 'https:';

  const requestOptions: RequestOptions & { ca?: string } = {
    hostname: host,
    port: portOf(url),
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...callerHeaders(request.headers),
      'content-length': String(Buffer.byteLength(request.body)),
      'accept-encoding': 'identity',
    },
    // A fresh connection each time: a pooled one could have been opened to an address checked earlier.
    agent: false,
    lookup: pinnedLookup(addresses),
    ...(url.username === ''
      ? {}
      : { auth: `${percentDecoded(url.username)}:${percentDecoded(url.password)}` }),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  };

  return new Promise<WebhookAttempt>((resolve) => {
    let settled = false;
    let phase: 'connecting' | 'tls' | 'sent' | 'response' = 'connecting';
    let remoteAddress = '';
    let timedOut = false;
    let stage: NodeJS.Timeout | undefined;
    const settle = (attempt: WebhookAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(stage);
      resolve(attempt);
      req.destroy();
    };
    /** A limit on one stage of the attempt (connecting, waiting for headers), inside the whole attempt's. */
    const stageLimit = (ms: number, message: string) => {
      clearTimeout(stage);
      if (performance.now() + ms >= deadline) return;
      stage = setTimeout(() => {
        timedOut = true;
        settle(failure('timeout', message));
      }, ms);
    };

    // Events of the request arrive on later ticks, after `timer` is set: `settle` never runs before it.
    const req: ClientRequest = (https ? httpsRequest : httpRequest)(requestOptions, (res) => {
      phase = 'response';
      clearTimeout(stage);
      readResponse(res);
    });
    const connectTimeoutMs = options.connectTimeoutMs ?? WEBHOOK_CONNECT_TIMEOUT_MS;
    const responseTimeoutMs = options.responseTimeoutMs ?? WEBHOOK_RESPONSE_TIMEOUT_MS;
    const connected = () => {
      phase = 'sent';
      stageLimit(responseTimeoutMs, `no answer from ${url.host} within ${responseTimeoutMs} ms of connecting`);
    };
    stageLimit(connectTimeoutMs, `could not connect to ${url.host} within ${connectTimeoutMs} ms`);
    const timer = setTimeout(
      () => {
        timedOut = true;
        settle(failure('timeout', `no complete answer from ${url.host} within ${timeoutMs} ms`));
      },
      Math.max(0, deadline - performance.now()),
    );

    req.on('socket', (socket) => {
      socket.once('connect', () => {
        remoteAddress = socket.remoteAddress ?? '';
        if (phase !== 'connecting') return;
        if (https) phase = 'tls';
        else connected();
      });
      socket.once('secureConnect', () => {
        if (phase === 'tls') connected();
      });
    });
    req.on('error', (error: Error & { code?: string }) => {
      // Once the answer has begun, its own events decide (readResponse).
      if (timedOut || settled || phase === 'response') return;
      const code = error.code ?? '';
      const where = `${url.host}${remoteAddress === '' ? '' : ` (${remoteAddress})`}`;
      if (TLS_CODES.test(code) || phase === 'tls')
        settle(failure('tls', `TLS with ${where} failed: ${error.message}`));
      else if (code.startsWith('HPE_'))
        settle(failure('invalid_response', `${where} answered with a malformed HTTP response`));
      else
        settle(
          failure(
            'connection',
            `could not deliver to ${where}: ${CONNECTION_TEXT[code] ?? (code === '' ? 'connection failed' : code)}`,
          ),
        );
    });

    function readResponse(res: IncomingMessage): void {
      const limit = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
      const chunks: Buffer[] = [];
      let bytes = 0;
      let truncated = false;
      const done = () => {
        const body = Buffer.concat(chunks);
        const status = res.statusCode ?? 0;
        const retryAfter =
          status === 429 || status === 503
            ? parseRetryAfter(
                headerText(res.headers['retry-after']),
                (options.now ?? (() => new Date()))(),
              )
            : undefined;
        settle({
          outcome: 'response',
          ok: status >= 200 && status < 300,
          status,
          durationMs: elapsed(),
          bodySnippet: snippet(body),
          responseBytes: body.length,
          truncated,
          ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
          address: remoteAddress,
        });
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = limit - bytes;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          bytes = limit;
          truncated = true;
          res.destroy();
          done();
          return;
        }
        chunks.push(chunk);
        bytes += chunk.length;
      });
      res.on('end', done);
      // The receiver answered, then broke off its body: the answer stands with what arrived.
      res.on('close', () => {
        if (!timedOut) done();
      });
      res.on('error', () => undefined);
    }

    req.end(request.body);
  });
}

/** Headers this module sets itself: a caller's Host could change the name TLS verifies. */
const OWN_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'accept-encoding',
]);

function callerHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers)
      .map(([name, value]) => [name.toLowerCase(), value] as const)
      .filter(([name]) => !OWN_HEADERS.has(name)),
  );
}

/** A URL's user or password as sent: percent-decoded, or as written when its encoding is broken. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The first SNIPPET_BYTES as text: a character cut at the end left off, NUL (which PostgreSQL text refuses) replaced. */
function snippet(body: Buffer): string {
  return new TextDecoder('utf-8')
    .decode(body.subarray(0, SNIPPET_BYTES), { stream: true })
    .replace(/\0/g, '\uFFFD');
}
