import { sql } from 'drizzle-orm';
import { connect } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyDatabaseFailure, openDatabase } from '../src';
import { createTestDatabase, postgresTestEngine, testEngines, type TestDatabase } from '../src/testing';

/** The error a call rejects with; fails the test if it resolves. */
async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`database failures classified on ${engine}`, () => {
    let test: TestDatabase;
    beforeAll(async () => {
      test = await createTestDatabase(engine);
    });
    afterAll(async () => {
      await test.dispose();
    });

    it('calls a whole-number column given a fraction a defect, with its SQLSTATE and without the value', async () => {
      const error = await failureOf(() => test.database.rows(sql`select count(*) from listings where index_score >= ${'40.5'}`));
      const failure = classifyDatabaseFailure(error);
      expect(failure).toMatchObject({ kind: 'defect', sqlstate: '22P02' });
      expect(failure.message).not.toContain('40.5');
    });

    it('calls a division by zero and a missing relation defects', async () => {
      expect(classifyDatabaseFailure(await failureOf(() => test.database.rows(sql`select 1 / 0`)))).toMatchObject({ kind: 'defect', sqlstate: '22012' });
      expect(classifyDatabaseFailure(await failureOf(() => test.database.rows(sql`select * from no_such_table`)))).toMatchObject({
        kind: 'defect',
        sqlstate: '42P01',
      });
    });

    it('calls a database that has been closed unavailable', async () => {
      const own = await createTestDatabase(engine, { migrate: false });
      await own.database.close();
      expect(classifyDatabaseFailure(await failureOf(() => own.database.rows(sql`select 1`))).kind).toBe('unavailable');
      await own.dispose().catch(() => undefined);
    });
  });
}

describe.skipIf(postgresTestEngine().skip)('PostgreSQL failures that pass', () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await test.dispose();
  });

  it('calls a statement timeout unavailable (57014)', async () => {
    const timed = await openDatabase({ databaseUrl: test.url, maxConnections: 1, statementTimeoutMs: 50 });
    const error = await failureOf(() => timed.rows(sql`select pg_sleep(1)`));
    expect(classifyDatabaseFailure(error)).toMatchObject({ kind: 'unavailable', sqlstate: '57014' });
    await timed.close();
  });

  it('calls a server that terminated the connection unavailable, with the reason it gave', async () => {
    const victim = await openDatabase({ databaseUrl: test.url, maxConnections: 1 });
    const error = await failureOf(() => victim.rows(sql`select pg_terminate_backend(pg_backend_pid())`));
    // FATAL 57P01 "terminating connection due to administrator command", then the close
    expect(classifyDatabaseFailure(error)).toMatchObject({ kind: 'unavailable', sqlstate: '57P01' });
    await victim.close();
  });

  it('calls a refused connection to a host of several addresses unavailable (an AggregateError without syscall)', async () => {
    // what Node 20 throws when every address of a dual-stack name (localhost: ::1 and 127.0.0.1) refuses
    const error = await new Promise<unknown>((resolve) => {
      const socket = connect({
        port: 1,
        host: 'two-addresses',
        autoSelectFamily: true,
        lookup: (_host, _options, callback) => {
          (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
            { address: '127.0.0.1', family: 4 },
            { address: '::1', family: 6 },
          ]);
        },
      });
      socket.once('error', resolve);
    });
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as { syscall?: unknown }).syscall).toBeUndefined();
    expect(classifyDatabaseFailure(error)).toMatchObject({ kind: 'unavailable', sqlstate: undefined });
    // wrapped as Drizzle wraps a driver's error
    expect(classifyDatabaseFailure(new Error('Failed query: select 1', { cause: error })).kind).toBe('unavailable');
  });

  it('still calls an error of our own code a defect', () => {
    expect(classifyDatabaseFailure(new TypeError('cannot read properties of undefined')).kind).toBe('defect');
    expect(classifyDatabaseFailure(new AggregateError([new TypeError('x')], 'several')).kind).toBe('defect');
  });

  it('calls a refused connection unavailable', async () => {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const client = postgres('postgres://postgres@127.0.0.1:1/test', { max: 1, connect_timeout: 5, onnotice: () => undefined });
    const error = await failureOf(() => client`select 1`);
    expect(classifyDatabaseFailure(error)).toMatchObject({ kind: 'unavailable', sqlstate: undefined });
    await client.end({ timeout: 1 });
  });
});
