import { readFileSync } from 'node:fs';

/**
 * The product's version: apps/cli/package.json's (the package that ships the `domain-index`
 * program), which the root package.json repeats; version.test.ts holds the two equal.
 */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
