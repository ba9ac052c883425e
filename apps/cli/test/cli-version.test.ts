import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli';

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('domain-index --version', () => {
  it.each([['--version'], ['-V']])('%s prints the version of apps/cli/package.json alone and exits 0', async (flag) => {
    const run = await runCli([flag], {});
    expect(run).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });
});
