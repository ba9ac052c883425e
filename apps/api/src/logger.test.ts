import { Writable } from 'node:stream';
import { openDatabase, sql } from '@domain-index/db';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';

describe('the logger', () => {
  it("logs a failed statement's error and its cause, but not the statement's parameter values", async () => {
    const lines: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const database = await openDatabase({ dataDir: 'memory://' });
    await database.close();
    // a real Drizzle error: "Failed query: ... params: <values>", caused by the driver's own error
    const error = await database.rows(sql`select ${'customer-secret-value'} as v`).catch((thrown: unknown) => thrown);
    expect((error as Error).message).toContain('customer-secret-value');
    logger.error({ err: error }, 'failed');
    logger.flush();
    const logged = lines.join('');
    expect(logged).toContain('Failed query: select $1');
    expect(logged).toContain('params: [not logged]');
    expect(logged).toContain('PGlite is closed');
    expect(logged).not.toContain('customer-secret-value');
  });
});
