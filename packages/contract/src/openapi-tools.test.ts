import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = (command: string, args: string[]) =>
  execFileSync(command, args, {
    cwd: packageDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

describe('the OpenAPI document in third-party tools', () => {
  beforeAll(() => {
    // dist/openapi.json and, through openapi-typescript, dist/openapi-types.ts
    run(tsx, ['scripts/generate-openapi.ts']);
  }, 60_000);

  it("passes Redocly's recommended ruleset with no error and no warning", () => {
    // scripts/lint-openapi.ts fails on any problem and prints them; the last line is the totals
    let output: string;
    try {
      output = run(tsx, ['scripts/lint-openapi.ts', 'dist/openapi.json']);
    } catch (error) {
      throw new Error(`Redocly found problems:\n${String((error as { stderr?: unknown }).stderr)}`);
    }
    expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual({
      errors: 0,
      warnings: 0,
      ignored: 0,
    });
  }, 60_000);

  it("gives openapi-typescript named Domain and alert types that a customer's scripts compile against", () => {
    const types = readFileSync(`${packageDir}dist/openapi-types.ts`, 'utf8');
    for (const name of ['Domain', 'Event', 'Alert', 'AlertWithSecret', 'CreateAlert', 'UpdateAlert', 'DeliveryAttempt', 'DeliveryList'])
      expect(types, name).toMatch(new RegExp(`\\n {8}${name}: \\{\\n`));
    // the bodies of the writes are the named ones, and an event's listing is the Domain type
    expect(types).toContain('"application/json": components["schemas"]["CreateAlert"];');
    expect(types).toContain('"application/json": components["schemas"]["UpdateAlert"];');
    expect(types).toContain('object: components["schemas"]["Domain"] | null;');
    // scripts/openapi-consumer uses components['schemas']['Domain'] and the alerts' bodies and
    // answers, expects the errors a wrong value must give, walks a search and goes through an
    // alert's life with openapi-fetch
    expect(() => run(process.execPath, [tsc, '-p', 'scripts/openapi-consumer'])).not.toThrow();
  }, 60_000);
});
