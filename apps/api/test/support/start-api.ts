import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { plans } from '@domain-index/db';
import { createTestDatabase, type TestDatabase, type TestEngine } from '@domain-index/db/testing';
import { DEFAULT_SOURCES, type SourceConfig } from '@domain-index/indexer';
import { createApp, type AppDeps } from '../../src/app';
import { createHttpServer } from '../../src/http/http-server';
import { systemClock, type Clock } from '@domain-index/runtime/clock';
import { createKey } from '@domain-index/accounts/key-store';
import { createLogger } from '@domain-index/runtime/logger';
import { MemoryRateLimiter } from '../../src/ratelimit/memory-rate-limiter';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { SignInLimiter } from '../../src/dashboard/sign-in-limiter';
import type { PasswordHasher } from '@domain-index/accounts/passwords';
import { UsageRecorder } from '../../src/usage/usage-recorder';
import { RequestLogRecorder } from '../../src/request-log/request-log-recorder';
import type { Mailer } from '@domain-index/mail/mailer';
import { ApiMetrics } from '../../src/ops/api-metrics';
import { Registry } from 'prom-client';

/** A real API server on a loopback port over a real database, with its log lines captured. */
export interface RunningApi {
  readonly baseUrl: string;
  readonly test: TestDatabase;
  /** Every log line the app wrote. */
  readonly logLines: string[];
  /** The body of every error response this helper received, for leak checks. */
  readonly errorBodies: string[];
  /** A key on the unmetered test plan, sent by `get`. */
  readonly apiKey: string;
  /** This instance's metrics. */
  readonly metrics: ApiMetrics;
  /** The key-usage counter of this instance, when started with `dashboard`. */
  readonly usage: UsageRecorder | undefined;
  /** The request log of this instance, when started with `dashboard`. */
  readonly requestLog: RequestLogRecorder | undefined;
  /** GET with `Authorization: Bearer <apiKey>` unless the caller sets the header. */
  get(path: string, init?: RequestInit): Promise<Response>;
  /** A request exactly as given: no Authorization header added. */
  raw(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  sources?: readonly SourceConfig[];
  /** Reuse a database (e.g. several instances on one); otherwise a fresh one is made. */
  test?: TestDatabase;
  overrides?: Partial<AppDeps>;
  /** Serve the dashboard at /dashboard and count key usage, as `serve` does. */
  dashboard?: {
    signupOpen?: boolean;
    signInLimiter?: SignInLimiter;
    /**
     * PUBLIC_URL: https makes the session cookie Secure and `__Host-`, and the forms are accepted
     * from its origin only. By default the server's own address, as a laptop's `serve` has it.
     */
    publicUrl?: string;
    /** In place of Argon2id, e.g. to count how often passwords are hashed and verified. */
    passwords?: PasswordHasher;
    /** Sends "forgot password" mail (SMTP_URL); none by default. */
    mailer?: Mailer;
  };
}

/** What an error body must never contain: SQL, driver or library names, stack frames. */
export const LEAK = /select |from listings|syntax error|relation "|postgres|pglite|drizzle|ECONNREFUSED|\bat \S+\.(ts|js)|stack/i;

/** The plan of the suites' own keys. */
export const TEST_PLAN = 'test-unmetered';

export async function startApi(engine: TestEngine, options: StartOptions = {}): Promise<RunningApi> {
  const test = options.test ?? (await createTestDatabase(engine));
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  const cursorSecret = await loadCursorSecret(test.database);
  // Spec suites send thousands of requests: their key sits on a plan (plans are data) that never limits them.
  await test.database.db.insert(plans).values({ id: TEST_PLAN, requestsPerWindow: 1_000_000_000, windowSeconds: 3600, description: 'tests' }).onConflictDoNothing();
  const { key: apiKey } = await createKey(test.database, { planId: TEST_PLAN, name: 'test suite', environment: 'test' });
  const rateLimiter = new MemoryRateLimiter();
  const logger = createLogger('info', sink);
  // Flushed often, so a test sees the counts of its requests without waiting 5 s.
  const metrics = new ApiMetrics(new Registry());
  const usage = options.dashboard === undefined ? undefined : new UsageRecorder(test.database, logger, 50, metrics);
  const requestLog = options.dashboard === undefined ? undefined : new RequestLogRecorder(test.database, logger, { flushEveryMs: 50, metrics, now: () => (options.clock ?? systemClock).now() });
  const signInLimiter = options.dashboard?.signInLimiter ?? SignInLimiter.inMemory();
  // Listening first, so that the default PUBLIC_URL can be the address it listens on; the
  // server is made as `serve` makes it, with its timeouts.
  const server = createHttpServer();
  // PGlite runs in this process and can hold the event loop past fetch's 4 s keep-alive timer;
  // the server's 5 s timer could then close a socket fetch is just reusing (ECONNRESET). Idle
  // sockets stay open until close(), which ends them.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const app = createApp({
    database: test.database,
    logger,
    clock: options.clock ?? systemClock,
    sources: options.sources ?? DEFAULT_SOURCES,
    // Suites assert exact totals over a few hundred rows; on a loaded CI machine a count of them
    // once overran the production default of 100 ms. count-budget.test.ts covers the overrun.
    countBudgetMs: 10_000,
    queryTimeoutMs: 10_000,
    cursorSecret,
    rateLimiter,
    usage,
    requestLog,
    metrics,
    dashboard:
      options.dashboard === undefined
        ? undefined
        : {
            publicUrl: options.dashboard.publicUrl ?? baseUrl,
            signupOpen: options.dashboard.signupOpen ?? false,
            signInLimiter,
            ...(options.dashboard.passwords === undefined ? {} : { passwords: options.dashboard.passwords }),
            ...(options.dashboard.mailer === undefined ? {} : { mailer: options.dashboard.mailer }),
          },
    ...options.overrides,
  });
  server.on('request', app);
  const errorBodies: string[] = [];
  const raw = async (path: string, init?: RequestInit) => {
    const response = await fetch(`${baseUrl}${path}`, init);
    if (response.status >= 400) errorBodies.push(await response.clone().text());
    return response;
  };
  return {
    baseUrl,
    test,
    logLines,
    errorBodies,
    apiKey,
    usage,
    requestLog,
    metrics,
    raw,
    get(path, init) {
      const headers = new Headers(init?.headers);
      if (!headers.has('authorization')) headers.set('authorization', `Bearer ${apiKey}`);
      return raw(path, { ...init, headers });
    },
    async close() {
      // Every error body any suite received through this helper is checked here, at close.
      const leaked = errorBodies.filter((body) => LEAK.test(body));
      if (leaked.length > 0) throw new Error(`error bodies leak internals:\n${leaked.join('\n')}`);
      server.closeAllConnections();
      await rateLimiter.close();
      await usage?.close();
      await requestLog?.close();
      if (options.dashboard?.signInLimiter === undefined) await signInLimiter.close();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      if (options.test === undefined) await test.dispose();
    },
  };
}
