import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveApi, type LiveApi } from './support/live-api';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');

/** The ```ts blocks of the client README, in order: every example there is run here. */
function readmeExamples(): string[] {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

describe('the published package, installed from its tarball outside the workspace', () => {
  let api: LiveApi;
  let scratch: string;
  let env: NodeJS.ProcessEnv;
  const run = (file: string) => execFileSync(process.execPath, [file], { cwd: scratch, env, encoding: 'utf8', timeout: 60_000 });

  beforeAll(async () => {
    api = await startLiveApi();
    scratch = mkdtempSync(join(tmpdir(), 'di-consumer-'));
    env = { PATH: process.env.PATH ?? '', DOMAIN_INDEX_API_KEY: api.apiKey, DOMAIN_INDEX_BASE_URL: api.baseUrl };
    execFileSync('npm', ['pack', '--pack-destination', scratch], { cwd: packageDir, stdio: 'ignore' });
    const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'))!;
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, version: '1.0.0' }));
    // no registry needed: the client has no runtime dependency
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', `./${tarball}`], { cwd: scratch, stdio: 'ignore' });
  }, 240_000);
  afterAll(async () => {
    await api.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('ships only dist, README, CHANGELOG and package.json, with no dependency', () => {
    const installed = join(scratch, 'node_modules/@domain-index/client');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    expect(readdirSync(installed).sort()).toEqual(['CHANGELOG.md', 'README.md', 'dist', 'package.json']);
  });

  it('works from an ES module', () => {
    writeFileSync(
      join(scratch, 'esm.mjs'),
      `import { DomainIndex, NotFoundError } from '@domain-index/client';
const client = new DomainIndex();
const page = await client.domains.list({ status: 'all', limit: 12 });
const missing = await client.domains.get('not-listed-at-all.com').catch((e) => e);
console.log(JSON.stringify({ rows: page.data.length, notFound: missing instanceof NotFoundError }));`,
    );
    expect(JSON.parse(run('esm.mjs'))).toEqual({ rows: 12, notFound: true });
  });

  it('works from CommonJS', () => {
    writeFileSync(
      join(scratch, 'cjs.cjs'),
      `const { DomainIndex } = require('@domain-index/client');
(async () => {
  const client = new DomainIndex();
  let rows = 0;
  for await (const _ of client.domains.list({ status: 'all', limit: 10 }, { maxItems: 25 })) rows += 1;
  const stats = await client.stats();
  console.log(JSON.stringify({ rows, hasTotal: stats.total > 0 }));
})();`,
    );
    expect(JSON.parse(run('cjs.cjs'))).toEqual({ rows: 25, hasTotal: true });
  });

  it('type-checks a strict TypeScript consumer, and rejects a mistyped parameter', () => {
    writeFileSync(
      join(scratch, 'consumer.ts'),
      `import { DomainIndex, RateLimitError, type Domain, type SearchParams } from '@domain-index/client';
const params: SearchParams = { status: 'dropping', sort: 'length', min_price: 10, no_hyphens: true };
const client = new DomainIndex({ apiKey: 'x' });
export async function names(): Promise<string[]> {
  const out: string[] = [];
  for await (const d of client.domains.list(params)) out.push(d.domain_name);
  return out;
}
export const retryIn = (e: unknown): number | undefined => (e instanceof RateLimitError ? e.retryAfter : undefined);
export const price = (d: Domain): number | null => d.current_bid;
// @ts-expect-error status is a closed set
export const wrong: SearchParams = { status: 'sold' };
`,
    );
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: false, lib: ['es2022', 'dom'], types: [] }, files: ['consumer.ts'] }),
    );
    expect(() => execFileSync(process.execPath, [tsc, '-p', scratch], { encoding: 'utf8' })).not.toThrow();
  });

  it('runs every example of the README against the live API', () => {
    const examples = readmeExamples();
    expect(examples.length).toBeGreaterThanOrEqual(5);
    examples.forEach((code, index) => {
      writeFileSync(join(scratch, `readme-${index}.mjs`), code);
      const output = run(`readme-${index}.mjs`);
      expect(output.length, `example ${index}`).toBeGreaterThan(0);
    });
  });

  it('passes publint and are-the-types-wrong', () => {
    const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'))!;
    const bin = (name: string) => join(packageDir, 'node_modules/.bin', name);
    // both exit non-zero on a problem, which fails this test
    execFileSync(bin('publint'), ['--strict', '--pack', 'npm', packageDir], { encoding: 'utf8' });
    execFileSync(bin('attw'), [join(scratch, tarball), '--profile', 'node16'], { encoding: 'utf8' });
  });
});
