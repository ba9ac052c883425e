import { Writable } from 'node:stream';
import { openDatabase, sql } from '@domain-index/db';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, flushRepeats } from './logger';

/** A logger at `level` whose lines land in the returned array, parsed. */
function capture(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const text: string[] = [];
  const logger = createLogger(
    level,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter((part) => part !== '')) {
          text.push(line);
          lines.push(JSON.parse(line) as Record<string, unknown>);
        }
        done();
      },
    }),
  );
  return { logger, lines, text };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the logger', () => {
  it('logs a database that is away as one line without a stack, a statement or its values', async () => {
    const { logger, text } = capture();
    const database = await openDatabase({ dataDir: 'memory://' });
    await database.close();
    // a real Drizzle error: "Failed query: ... params: <values>", caused by the driver's own error
    const error = await database.rows(sql`select ${'customer-secret-value'} as v, 1 as listing_id, 2 as current_bid`).catch((thrown: unknown) => thrown);
    expect((error as Error).message).toContain('customer-secret-value');
    logger.warn({ err: error }, 'could not record key usage; kept for the next flush');
    logger.flush();
    expect(text).toHaveLength(1);
    expect(JSON.parse(text[0]!)).toMatchObject({ level: 40, err: { type: 'Error', message: 'PGlite is closed' } });
    expect(text[0]).not.toContain('stack');
    expect(text[0]).not.toMatch(/select|listing_id|customer-secret-value/i);
  });

  it("logs a statement the database refused with its stack and cause, but not the statement's text or values", async () => {
    const { logger, text } = capture();
    const database = await openDatabase({ dataDir: 'memory://' });
    const error = await database.rows(sql`select source, listing_id, current_bid from no_such_table where domain_name = ${'customer-secret-value'}`).catch((thrown: unknown) => thrown);
    await database.close();
    logger.error({ err: error }, 'could not record the failed sync');
    logger.flush();
    expect(text).toHaveLength(1);
    const line = JSON.parse(text[0]!) as { err: { message: string; stack: string; cause: { code: string } } };
    expect(line.err.message).toBe('a database statement failed');
    expect(line.err.stack).toMatch(/^\w+: a database statement failed\n {4}at /);
    expect(line.err.cause.code).toBe('42P01');
    expect(text[0]).not.toMatch(/select|insert|listing_id|customer-secret-value/i);
  });

  it('writes identical warnings once per 10 s and then how many followed, whatever their request ids', () => {
    vi.useFakeTimers();
    const { logger, lines } = capture();
    for (let i = 0; i < 25; i += 1) {
      logger.warn({ code: 'query_failed', failure: 'DEADLINE_EXCEEDED', route: '/api/v1/domains', requestId: `req_${i}` }, 'request refused by a service fault');
      if (i === 3) logger.warn({ code: 'rate_limit_unavailable', route: '/api/v1/domains', requestId: 'req_x' }, 'request refused by a service fault');
      // info lines (the access log) are never counted
      logger.info({ requestId: `req_${i}` }, 'request completed');
    }
    expect(lines.filter((line) => line.level === 40).map((line) => [line.code, line.requestId])).toEqual([
      ['query_failed', 'req_0'],
      ['rate_limit_unavailable', 'req_x'],
    ]);
    expect(lines.filter((line) => line.msg === 'request completed')).toHaveLength(25);
    vi.advanceTimersByTime(10_000);
    const summaries = lines.filter((line) => line.repeated !== undefined);
    expect(summaries).toEqual([
      expect.objectContaining({ level: 40, code: 'query_failed', repeated: 24, msg: 'request refused by a service fault (repeated 24 times in 10 s)' }),
    ]);
    expect(summaries[0]).not.toHaveProperty('requestId');
    // the window closed: the next one is written again
    logger.warn({ code: 'query_failed', failure: 'DEADLINE_EXCEEDED', route: '/api/v1/domains', requestId: 'req_late' }, 'request refused by a service fault');
    expect(lines.at(-1)).toMatchObject({ requestId: 'req_late' });
  });

  it('writes the counts still open when the process stops', () => {
    const { logger, lines } = capture();
    for (let i = 0; i < 3; i += 1) logger.error({ source: 'bidhaus' }, 'sync failed; previous batch kept');
    expect(lines).toHaveLength(1);
    flushRepeats(logger);
    expect(lines.map((line) => line.msg)).toEqual(['sync failed; previous batch kept', 'sync failed; previous batch kept (repeated 2 times in 10 s)']);
    flushRepeats(logger);
    expect(lines).toHaveLength(2);
  });
});
