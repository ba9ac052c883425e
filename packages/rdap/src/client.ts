import { setMaxListeners } from 'node:events';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Agent } from 'undici';
import {
  BootstrapTable,
  parseBootstrapFile,
  shippedBootstrap,
  type BootstrapFile,
} from './bootstrap';
import {
  availableRegistration,
  parseDomainObject,
  unknownRegistration,
  type Registration,
} from './domain-object';
import { HostGate } from './host-gate';
import { getOnce, type GetResult } from './http-get';
import { limitsFor as limitsIn, parseRdapLimits, type HostLimits } from './limits';
import { backoffMs, retryAfterDate } from './retry-after';

/** How a check ended: what the registry said, or why nothing was learned. */
export type CheckOutcome = 'found' | 'not_found' | 'no_rdap' | 'rate_limited' | 'timeout' | 'error';

/**
 * A check's result. `found`: the registry's domain object; `not_found`: 404, phase `available`;
 * `no_rdap`: the bootstrap names no server for the TLD, phase `unknown`, server null. The other
 * outcomes learned nothing: `retryAt` is when to ask again (from `Retry-After`, else backoff).
 */
export type CheckResult =
  | {
      outcome: 'found' | 'not_found' | 'no_rdap';
      server: string | null;
      registration: Registration;
    }
  | {
      outcome: 'rate_limited' | 'timeout' | 'error';
      server: string;
      reason: string;
      retryAt: Date | null;
    };

/** Registration data of domain names over RDAP, polite to every registry it asks. */
export interface RdapClient {
  /**
   * Asks the registry the bootstrap names for `domain` (ASCII/punycode, lower case, validated).
   * Waits its turn under the host's limits; rejects only with the reason of `signal` when the
   * caller aborts, or when the client is closed while the check waits.
   */
  check(domain: string, options?: { signal?: AbortSignal }): Promise<CheckResult>;
  /** The base URL the bootstrap names for the domain's TLD, or null. */
  serverFor(domain: string): string | null;
  /** What this client will never exceed for the host of `server` (a URL or host[:port]). */
  limitsFor(server: string): { concurrency: number; perMinute: number };
  /** Fetches the bootstrap URL now; a failure is logged and the data in use kept. Never rejects. */
  refreshBootstrap(): Promise<void>;
  /** Stops the timers, turns waiting checks away, closes the connections. */
  close(): Promise<void>;
  /** When the bootstrap in use was published (IANA's `publication`). */
  bootstrapPublication(): Date;
}

/** Options of {@link createRdapClient}; every one has a default. */
export interface RdapClientOptions {
  /** Where the bootstrap file is fetched from, at start and then every `bootstrapRefreshMs`. */
  bootstrapUrl?: string;
  /** Where the last fetched bootstrap is kept between starts. */
  bootstrapCacheFile?: string;
  /** RDAP_LIMITS: see `parseRdapLimits`. Throws on a malformed value. */
  limits?: string;
  /** One request's whole exchange; default 10 s. */
  timeoutMs?: number;
  /** A larger body is refused unread: default 256 KiB. */
  maxResponseBytes?: number;
  now?: () => Date;
  log?: (line: string) => void;
  /** Fetch the bootstrap at start (default true; false where a test gives no network). */
  fetchBootstrapAtStart?: boolean;
  /** Default one day. */
  bootstrapRefreshMs?: number;
  /** Retries within one check after a 5xx or a connection error: 0 to 2, default 1. */
  retries?: number;
  /** The pause before such a retry: default 500 ms (jittered down to half). */
  retryDelayMs?: number;
  /** `retryAt` backoff after consecutive failures of a host: default 60 s doubling to 1 h. */
  backoff?: { baseMs: number; maxMs: number };
  /** Redirects followed per request (RFC 7480 §5.2), http(s) only: default 3. */
  maxRedirects?: number;
  /** For jitter; default Math.random. */
  random?: () => number;
  userAgent?: string;
}

/** The defaults of {@link createRdapClient}'s options. */
export const RDAP_CLIENT_DEFAULTS = {
  bootstrapUrl: 'https://data.iana.org/rdap/dns.json',
  timeoutMs: 10_000,
  maxResponseBytes: 256 * 1024,
  maxBootstrapBytes: 4 * 1024 * 1024,
  bootstrapRefreshMs: 24 * 60 * 60 * 1000,
  retries: 1,
  retryDelayMs: 500,
  backoff: { baseMs: 60_000, maxMs: 60 * 60 * 1000 },
  maxRedirects: 3,
  userAgent: 'domain-index-rdap/1.0',
} as const;

const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
const RDAP_ACCEPT = 'application/rdap+json, application/json;q=0.9';
/** Where a redirect leads, when `result` is one to an http(s) URL. */
function redirectTarget(result: GetResult, from: string): string | null {
  if (result.kind !== 'response' || ![301, 302, 303, 307, 308].includes(result.status)) return null;
  const location = result.headers.location;
  if (location === undefined) return null;
  try {
    const next = new URL(location, from);
    return next.protocol === 'https:' || next.protocol === 'http:' ? next.href : null;
  } catch {
    return null;
  }
}

/** Joins a base URL as the bootstrap gives it and a path, adding the `/` RFC 9224 says it ends with. */
function joinUrl(base: string, path: string): string {
  return `${base.endsWith('/') ? base : `${base}/`}${path}`;
}

/**
 * The RDAP client: bootstrap from the cache file (else the shipped copy), refreshed at start and
 * daily; per-host limits from `limits`; `Retry-After` honoured on 429 and 503; timeouts, capped
 * bodies, at most `retries` retries within a check, backoff advice in `retryAt`.
 */
export function createRdapClient(options: RdapClientOptions = {}): RdapClient {
  const now = options.now ?? (() => new Date());
  const log = options.log ?? (() => undefined);
  const random = options.random ?? Math.random;
  const limits = parseRdapLimits(options.limits ?? '');
  const bootstrapUrl = options.bootstrapUrl ?? RDAP_CLIENT_DEFAULTS.bootstrapUrl;
  const timeoutMs = options.timeoutMs ?? RDAP_CLIENT_DEFAULTS.timeoutMs;
  const maxBytes = options.maxResponseBytes ?? RDAP_CLIENT_DEFAULTS.maxResponseBytes;
  const retries = Math.max(0, Math.min(2, options.retries ?? RDAP_CLIENT_DEFAULTS.retries));
  const retryDelayMs = options.retryDelayMs ?? RDAP_CLIENT_DEFAULTS.retryDelayMs;
  const backoff = { ...(options.backoff ?? RDAP_CLIENT_DEFAULTS.backoff), random };
  const maxRedirects = options.maxRedirects ?? RDAP_CLIENT_DEFAULTS.maxRedirects;
  const userAgent = options.userAgent ?? RDAP_CLIENT_DEFAULTS.userAgent;
  // backstops only: getOnce's own timer ends every exchange, the bootstrap's after 30 s
  const dispatcher = new Agent({
    headersTimeout: Math.max(timeoutMs, 30_000),
    bodyTimeout: Math.max(timeoutMs, 30_000),
    keepAliveTimeout: 10_000,
  });

  let table = new BootstrapTable(initialBootstrap(options.bootstrapCacheFile, log));
  const gates = new Map<string, HostGate>();
  const failures = new Map<string, number>();
  const blockedUntil = new Map<string, number>();
  const lifetime = new AbortController();
  // every request in flight listens on it (and stops listening when it ends): with more than ten
  // in flight Node would warn of a leak that is not one
  setMaxListeners(0, lifetime.signal);
  const sleepers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  let refreshing: Promise<void> | undefined;
  let closed = false;

  const gateFor = (host: string) => {
    let gate = gates.get(host);
    if (gate === undefined) {
      gate = new HostGate(limitsIn(limits, host));
      gates.set(host, gate);
    }
    return gate;
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const sleeper = {
        timer: setTimeout(() => {
          sleepers.delete(sleeper);
          resolve();
        }, ms),
        resolve,
      };
      sleepers.add(sleeper);
    });

  const fail = (host: string) => {
    const count = failures.get(host) ?? 0;
    failures.set(host, count + 1);
    return new Date(now().getTime() + backoffMs(count, backoff));
  };

  async function fetchBootstrap(): Promise<void> {
    let result: GetResult;
    let url = bootstrapUrl;
    for (let hop = 0; ; hop++) {
      result = await getOnce(url, {
        dispatcher,
        timeoutMs: Math.max(timeoutMs, 30_000),
        maxBytes: RDAP_CLIENT_DEFAULTS.maxBootstrapBytes,
        accept: 'application/json',
        userAgent,
        readBodyOf: (status) => status === 200,
        signals: [lifetime.signal],
      });
      const next = redirectTarget(result, url);
      if (next === null || hop >= maxRedirects) break;
      url = next;
    }
    let reason: string;
    if (result.kind === 'response' && result.status === 200 && result.body !== null) {
      try {
        const file = parseBootstrapFile(JSON.parse(result.body));
        // the configured URL is the authority, whatever its date: an operator's own file may be older than IANA's
        const next = new BootstrapTable(file);
        table = next;
        log(
          `rdap bootstrap: loaded ${bootstrapUrl}, published ${file.publication}, ${next.size} labels`,
        );
        if (options.bootstrapCacheFile !== undefined)
          saveCache(options.bootstrapCacheFile, file, log);
        return;
      } catch (error) {
        reason =
          error instanceof SyntaxError ? `not JSON (${error.message})` : (error as Error).message;
      }
    } else if (result.kind === 'response') reason = `HTTP ${result.status}`;
    else if (result.kind === 'network') reason = result.reason;
    else
      reason =
        result.kind === 'timeout'
          ? `no answer within ${Math.max(timeoutMs, 30_000)} ms`
          : 'file too large';
    log(
      `rdap bootstrap: fetching ${bootstrapUrl} failed, kept the one published ${table.file.publication}: ${reason}`,
    );
  }

  function refreshBootstrap(): Promise<void> {
    if (closed) return Promise.resolve();
    refreshing ??= fetchBootstrap()
      .catch((error: unknown) => {
        if (!closed) log(`rdap bootstrap: fetching ${bootstrapUrl} failed: ${String(error)}`);
      })
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  }

  const refreshTimer = setInterval(
    () => void refreshBootstrap(),
    options.bootstrapRefreshMs ?? RDAP_CLIENT_DEFAULTS.bootstrapRefreshMs,
  );
  refreshTimer.unref();
  if (options.fetchBootstrapAtStart ?? true) void refreshBootstrap();

  /**
   * A 429, or a 503 with Retry-After: no request to the host before the time it asked for (a
   * day at most: a server that asks for a year is broken, not busy), else the backoff. Null for
   * any other answer.
   */
  function holdOff(host: string, status: number, retryAfter: string | undefined): Date | null {
    if (status !== 429 && status !== 503) return null;
    const header = retryAfterDate(retryAfter, now());
    const asked =
      header === null
        ? null
        : new Date(Math.min(header.getTime(), now().getTime() + MAX_RETRY_AFTER_MS));
    if (asked === null && status !== 429) return null;
    const retryAt = asked ?? fail(host);
    blockedUntil.set(host, retryAt.getTime());
    log(`rdap: ${host} answered ${status}; no request to it before ${retryAt.toISOString()}`);
    return retryAt;
  }

  /** One request through the host's gate, following redirects (each hop through its own host's gate). */
  async function follow(
    url: string,
    signal: AbortSignal | undefined,
  ): Promise<
    | { host: string; result: GetResult; heldOff: Date | null }
    | { host: string; blocked: Date }
    | { host: string; refused: string }
  > {
    let current = url;
    for (let hop = 0; ; hop++) {
      const host = new URL(current).host.toLowerCase();
      const blocked = () => {
        const until = blockedUntil.get(host);
        return until !== undefined && until > now().getTime() ? new Date(until) : null;
      };
      const before = blocked();
      if (before !== null) return { host, blocked: before };
      let heldOff: Date | null = null;
      const result = await gateFor(host).run(async (): Promise<GetResult | Date> => {
        // checked again at its turn: a 429 may have come while this check waited
        const waited = blocked();
        if (waited !== null) return waited;
        const answer = await getOnce(current, {
          dispatcher,
          timeoutMs,
          maxBytes,
          accept: RDAP_ACCEPT,
          userAgent,
          readBodyOf: (status) => status === 200,
          signals: [signal, lifetime.signal],
        });
        // the host is held off before the gate lets the next check through, not after it
        if (answer.kind === 'response')
          heldOff = holdOff(host, answer.status, answer.headers['retry-after']);
        return answer;
      }, signal);
      if (result instanceof Date) return { host, blocked: result };
      if (result.kind !== 'response' || ![301, 302, 303, 307, 308].includes(result.status))
        return { host, result, heldOff };
      const location = result.headers.location;
      if (location === undefined)
        return { host, refused: `redirect ${result.status} without a Location` };
      if (hop >= maxRedirects) return { host, refused: `more than ${maxRedirects} redirects` };
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        return { host, refused: `redirect to an unreadable Location ${JSON.stringify(location)}` };
      }
      if (next.protocol !== 'https:' && next.protocol !== 'http:')
        return { host, refused: `redirect to ${next.protocol} refused` };
      current = next.href;
    }
  }

  async function check(
    domain: string,
    checkOptions: { signal?: AbortSignal } = {},
  ): Promise<CheckResult> {
    if (closed) throw new Error('RDAP client closed');
    const server = table.serverFor(domain);
    if (server === null)
      return { outcome: 'no_rdap', server: null, registration: unknownRegistration() };
    const url = joinUrl(server, `domain/${encodeURIComponent(domain)}`);
    for (let attempt = 0; ; attempt++) {
      const answer = await follow(url, checkOptions.signal);
      const { host } = answer;
      if ('blocked' in answer)
        return {
          outcome: 'rate_limited',
          server,
          reason: `${host} asked to wait until ${answer.blocked.toISOString()}`,
          retryAt: answer.blocked,
        };
      if ('refused' in answer)
        return { outcome: 'error', server, reason: answer.refused, retryAt: fail(host) };
      const { result } = answer;
      if (result.kind === 'timeout')
        return {
          outcome: 'timeout',
          server,
          reason: `no answer within ${timeoutMs} ms`,
          retryAt: fail(host),
        };
      if (result.kind === 'too_large')
        return { outcome: 'error', server, reason: 'response too large', retryAt: fail(host) };
      let reason: string;
      if (result.kind === 'network') reason = result.reason;
      else {
        const { status } = result;
        if (status === 200) {
          try {
            const registration = parseDomainObject(JSON.parse(result.body ?? ''), domain);
            failures.delete(host);
            return { outcome: 'found', server, registration };
          } catch (error) {
            const why = error instanceof SyntaxError ? 'not JSON' : (error as Error).message;
            return {
              outcome: 'error',
              server,
              reason: `malformed domain object: ${why}`,
              retryAt: fail(host),
            };
          }
        }
        if (status === 404) {
          failures.delete(host);
          return { outcome: 'not_found', server, registration: availableRegistration() };
        }
        if (answer.heldOff !== null)
          return {
            outcome: 'rate_limited',
            server,
            reason: `HTTP ${status}`,
            retryAt: answer.heldOff,
          };
        if (status < 500)
          return { outcome: 'error', server, reason: `HTTP ${status}`, retryAt: fail(host) };
        reason = `HTTP ${status}`;
      }
      if (attempt >= retries || closed)
        return { outcome: 'error', server, reason, retryAt: fail(host) };
      await sleep(retryDelayMs / 2 + (retryDelayMs / 2) * random());
    }
  }

  return {
    check,
    serverFor: (domain) => table.serverFor(domain),
    limitsFor: (server): HostLimits => ({ ...limitsIn(limits, server) }),
    refreshBootstrap,
    bootstrapPublication: () => table.publication,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(refreshTimer);
      for (const sleeper of sleepers) {
        clearTimeout(sleeper.timer);
        sleeper.resolve();
      }
      for (const gate of gates.values()) gate.close();
      lifetime.abort(new Error('RDAP client closed'));
      await refreshing;
      await dispatcher.close();
    },
  };
}

/** The cache file (the last copy fetched from the configured URL) when it is valid, else the shipped copy. */
function initialBootstrap(
  cacheFile: string | undefined,
  log: (line: string) => void,
): BootstrapFile {
  const shipped = shippedBootstrap();
  if (cacheFile === undefined || !existsSync(cacheFile)) return shipped;
  try {
    return parseBootstrapFile(JSON.parse(readFileSync(cacheFile, 'utf8')));
  } catch (error) {
    const why =
      error instanceof SyntaxError ? `not JSON (${error.message})` : (error as Error).message;
    log(
      `rdap bootstrap: refused ${cacheFile}: ${why}; using the shipped copy published ${shipped.publication}`,
    );
  }
  return shipped;
}

function saveCache(cacheFile: string, file: BootstrapFile, log: (line: string) => void): void {
  try {
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(file)}\n`);
    renameSync(temporary, cacheFile);
  } catch (error) {
    log(`rdap bootstrap: could not keep a copy in ${cacheFile}: ${(error as Error).message}`);
  }
}
