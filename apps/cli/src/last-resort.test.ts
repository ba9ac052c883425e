import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('../test/fixtures/uncaught.ts', import.meta.url));

describe('the last-resort handler', () => {
  for (const how of ['exception', 'rejection']) {
    it(`logs an uncaught ${how} as one JSON line without the statement or its values, and exits 1`, () => {
      const run = spawnSync(process.execPath, ['--import', 'tsx', fixture, how], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
      expect(run.status).toBe(1);
      const lines = run.stderr.split('\n').filter((line) => line !== '');
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as { level: number; msg: string; err: { message: string } };
      expect(line).toMatchObject({ level: 60, service: 'domain-index', msg: `${how === 'rejection' ? 'unhandled promise rejection' : 'uncaught exception'}; the process exits`, err: { type: 'Error', message: 'a database statement failed' } });
      expect(run.stderr).not.toMatch(/insert into|owner@example\.com|argon2id|secret-hash/);
    });
  }
});
