import { migrateDatabase, openDatabase } from '@domain-index/db';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../version';
import { Health } from './health';

const clock = { now: () => new Date('2026-11-21T12:00:00.000Z') };

describe('the health report', () => {
  it('names the product version while the process starts', async () => {
    const health = new Health({ redisUrl: undefined, sources: [], clock, description: 'test' });
    expect(await health.report()).toMatchObject({ status: 'fail', serviceId: 'domain-index', version: VERSION });
  });

  it('names the product version once the database is open', async () => {
    const database = await openDatabase({ dataDir: 'memory://' });
    try {
      await migrateDatabase(database);
      const health = new Health({ database, redisUrl: undefined, sources: [], clock, description: 'test' });
      const report = await health.report();
      expect(report).toMatchObject({ status: 'pass', serviceId: 'domain-index', version: VERSION, description: 'test' });
      expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      await database.close();
    }
  });
});
