import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from './database';
import { classifyDatabaseFailure } from './failures';
import { isDeadlineExceeded } from './deadline';
import { perDatabase } from './per-database';
import { createTestDatabase, postgresTestEngine, type TestDatabase } from './testing';
import { openWithLateCancels, type LateCancelsDatabase } from '../test/support/cancel-delaying-proxy';

const postgres = postgresTestEngine();

/** A server that accepts TCP connections and never says a word: a stalled database. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function elapsed<T>(work: () => Promise<T>): Promise<{ ms: number; error: unknown }> {
  const started = performance.now();
  try {
    await work();
    return { ms: performance.now() - started, error: undefined };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

describe.skipIf(postgres.skip)('deadlines on PostgreSQL statements', () => {
  let test: TestDatabase;
  let database: Database;
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    database = await openDatabase({ databaseUrl: test.url, maxConnections: 2 });
  });
  afterAll(async () => {
    await database.close();
    await test.dispose();
  });

  it('abandons a running statement at its deadline and cancels it on the server', async () => {
    const { ms, error } = await elapsed(() => database.until(Date.now() + 300).rows(sql`select pg_sleep(30), 'deadline-probe' as tag`));
    expect(isDeadlineExceeded(error)).toBe(true);
    expect(classifyDatabaseFailure(error).kind).toBe('unavailable');
    // at its deadline, not when the 30 s statement would have ended (the margin is a loaded machine's)
    expect(ms).toBeLessThan(15_000);
    // the server is not left running it
    const running = async () => (await test.database.rows<{ n: number }>(sql`select count(*)::int as n from pg_stat_activity where query like '%deadline-probe%' and state = 'active' and pid <> pg_backend_pid()`))[0]!.n;
    for (let i = 0; i < 50 && (await running()) > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await running()).toBe(0);
  });

  it('bounds a transaction, its statements and the wait for its connection', async () => {
    const { error } = await elapsed(() => database.until(Date.now() + 300).db.transaction(async (tx) => tx.execute(sql`select pg_sleep(30)`)));
    expect(isDeadlineExceeded(error)).toBe(true);
    // the pool is whole afterwards: both connections serve
    expect(await Promise.all([database.rows(sql`select 1 as one`), database.rows(sql`select 2 as two`)])).toEqual([[{ one: 1 }], [{ two: 2 }]]);
  });

  it('refuses at once a statement made after the deadline, and leaves the database itself and other views alone', async () => {
    const view = database.until(Date.now() + 50);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const late = await elapsed(() => view.rows(sql`select 1`));
    expect(isDeadlineExceeded(late.error)).toBe(true);
    const lateValues = await elapsed(() => view.values({ sql: 'select 1', params: [] }));
    expect(isDeadlineExceeded(lateValues.error)).toBe(true);
    // the view's deadline is its own: the database it bounds, and a later view, still answer
    expect(await database.rows<{ one: number }>(sql`select 1 as one`)).toEqual([{ one: 1 }]);
    expect(await database.until(Date.now() + 5_000).rows<{ two: number }>(sql`select 2 as two`)).toEqual([{ two: 2 }]);
    expect(view.root).toBe(database);
  });

  it('shares what is made per database with its views: a request does not render its statements again', () => {
    let made = 0;
    const memo = perDatabase(() => ({ made: (made += 1) }));
    const first = memo(database);
    expect(memo(database.until(Date.now() + 1_000))).toBe(first);
    expect(memo(database.until(Date.now() + 1_000).until(Date.now() + 2_000))).toBe(first);
    expect(made).toBe(1);
  });

  it('gives up on a server that accepts and never answers at the deadline, not at the connect timeout, and recovers its pool', async () => {
    const silent = await silentServer();
    const stalled = await openDatabase({ databaseUrl: `postgres://postgres@127.0.0.1:${silent.port}/x`, maxConnections: 1, connectTimeoutMs: 60_000 });
    try {
      for (let i = 0; i < 3; i += 1) {
        const { ms, error } = await elapsed(() => stalled.until(Date.now() + 300).rows(sql`select 1`));
        expect(isDeadlineExceeded(error)).toBe(true);
        // at its deadline, not at the 60 s connect timeout (the margin is a loaded machine's)
        expect(ms).toBeLessThan(15_000);
      }
    } finally {
      await silent.close();
      await stalled.close();
    }
  });
});

describe('database URLs', () => {
  it('reads ?pgbouncer=true off the URL and keeps every other parameter', async () => {
    const { parseDatabaseUrl, pgbouncerParameterProblem } = await import('./database-url');
    expect(parseDatabaseUrl('postgres://u:p@h:6432/db?pgbouncer=true&sslmode=require')).toEqual({ url: 'postgres://u:p@h:6432/db?sslmode=require', pooled: true });
    expect(parseDatabaseUrl('postgres://u@h/db?pgbouncer=false')).toEqual({ url: 'postgres://u@h/db', pooled: false });
    expect(parseDatabaseUrl('postgres://u@h/db')).toEqual({ url: 'postgres://u@h/db', pooled: false });
    expect(pgbouncerParameterProblem('postgres://u@h/db?pgbouncer=yes')).toBe('has pgbouncer=yes; it must be true or false');
    expect(pgbouncerParameterProblem('postgres://u@h/db?pgbouncer=true&pgbouncer=true')).toBe('gives pgbouncer more than once');
    expect(() => parseDatabaseUrl('postgres://u@h/db?pgbouncer=1')).toThrow('the database URL has pgbouncer=1; it must be true or false');
  });
});

// A CancelRequest travels on a connection of its own and interrupts whatever its backend runs
// when it lands. Held 500 ms on its way, as on a busy machine, the cancel of a statement that
// finished just after its deadline lands on whatever the connection runs next.
describe.skipIf(postgres.skip)('deadlines on PostgreSQL, with cancels that arrive late', () => {
  // longer than the statement runs past its deadline: it ends before its cancel lands
  const CANCEL_DELAY_MS = 500;
  let late: LateCancelsDatabase;
  beforeAll(async () => {
    late = await openWithLateCancels(CANCEL_DELAY_MS);
  });
  afterAll(async () => {
    await late.close();
  });

  it('rolls back a transaction whose statement finished after its deadline only once the cancel has landed, so the next statement on the connection runs to its end', async () => {
    const before = late.proxy.cancels();
    const forwardedBefore = late.proxy.forwarded();
    // done 100 ms after its deadline, 400 ms before its cancel reaches the server
    const { error } = await elapsed(() => late.database.until(Date.now() + 100).db.transaction(async (tx) => tx.execute(sql`select pg_sleep(0.2)`)));
    expect(isDeadlineExceeded(error)).toBe(true);
    // the caller is answered at its deadline, not when the cancel lands: the proxy still holds it
    expect(late.proxy.forwarded() - forwardedBefore).toBe(0);
    expect(await late.outlastACancel()).toEqual([{ slept: true }]);
    expect(late.proxy.cancels() - before).toBe(1);
    expect(await late.sessionsInTransaction()).toBe(0);
  });
});
