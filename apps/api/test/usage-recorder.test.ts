import { Writable } from 'node:stream';
import { keyUsage, sql, type Database } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKey } from '@domain-index/accounts/key-store';
import { createLogger } from '@domain-index/runtime/logger';
import { UsageRecorder } from '../src/usage/usage-recorder';

const HOUR = new Date('2026-11-21T12:00:00.000Z');

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`key usage counts on ${engine}`, () => {
    let test: TestDatabase;
    let database: Database;
    let keyId: string;
    const logLines: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );

    beforeAll(async () => {
      test = await createTestDatabase(engine);
      database = test.database;
      keyId = (await createKey(database, { planId: 'free', environment: 'test' })).id;
    });
    afterAll(async () => {
      await test.dispose();
    });

    const stored = async () =>
      (
        await database.db
          .select({ requests: keyUsage.requests, rows: keyUsage.rowsReturned })
          .from(keyUsage)
      )[0];

    it('writes the counts of a failed flush again by itself, with no request or shutdown to prompt it', async () => {
      await database.db.delete(keyUsage);
      const recorder = new UsageRecorder(database, logger, 20);
      try {
        // the table is away for the first flush, and back before the next one
        await database.rows(sql`alter table key_usage rename to key_usage_away`);
        recorder.record(keyId, 3, HOUR, 200);
        recorder.record(keyId, 4, HOUR, 200);
        await vi.waitFor(() => expect(logLines.join('')).toContain('could not record key usage'), {
          timeout: 5_000,
          interval: 10,
        });
        await database.rows(sql`alter table key_usage_away rename to key_usage`);
        await vi.waitFor(async () => expect(await stored()).toEqual({ requests: 2, rows: 7 }), {
          timeout: 5_000,
          interval: 20,
        });
      } finally {
        await recorder.close();
      }
      expect(await stored()).toEqual({ requests: 2, rows: 7 });
    });

    it('returns from a second flush, and from close, only once the write already running has finished', async () => {
      await database.db.delete(keyUsage);
      // each usage write takes a while, so the second caller arrives while the first is running
      await database.rows(
        sql.raw(
          `create function slow_usage() returns trigger language plpgsql as $$ begin perform pg_sleep(0.2); return new; end $$`,
        ),
      );
      await database.rows(
        sql.raw(
          'create trigger slow_usage before insert on key_usage for each row execute function slow_usage()',
        ),
      );
      try {
        const recorder = new UsageRecorder(database, logger, 60_000);
        recorder.record(keyId, 5, HOUR, 200);
        let firstDone = false;
        const first = recorder.flush().then(() => (firstDone = true));
        await recorder.flush();
        expect(firstDone).toBe(true);

        recorder.record(keyId, 6, HOUR, 200);
        firstDone = false;
        const timerFlush = recorder.flush().then(() => (firstDone = true));
        await recorder.close();
        expect(firstDone).toBe(true);
        await Promise.all([first, timerFlush]);
        expect(await stored()).toEqual({ requests: 2, rows: 11 });
      } finally {
        await database.rows(sql.raw('drop trigger slow_usage on key_usage'));
        await database.rows(sql.raw('drop function slow_usage()'));
      }
    });
  });
}
