import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VERSION } from './version';

const versionOf = (path: string) => (JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { version?: string }).version;

describe('the product version', () => {
  it("is apps/cli's package version, and the root package.json says the same", () => {
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    expect(VERSION).toBe(versionOf('../package.json'));
    expect(versionOf('../../../package.json')).toBe(VERSION);
  });
});
