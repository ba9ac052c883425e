// Assembles a release directory: `pnpm --filter @domain-index/cli run release <dir>`, after
// `pnpm install`. It holds the bundle (bundle.ts: plain JavaScript, nothing compiled at start)
// and the production dependencies of the CLI and of the workspace packages it uses, hoisted, in
// the workspace's layout, so that `node <dir>/apps/cli/dist/domain-index.js` runs with nothing
// else beside it. The container image's /app is made by it (Dockerfile), and so is what the
// systemd units run from /opt/domain-index (docs/operating.md, systemd).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const cliRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(cliRoot, '../..');

const fail = (message: string): never => {
  process.stderr.write(`release: ${message}\n`);
  process.exit(2);
};

const target = process.argv[2];
if (target === undefined || target.startsWith('-'))
  fail(
    'name the directory to assemble the release in: pnpm --filter @domain-index/cli run release <dir>',
  );
const dir = resolve(process.cwd(), target!);
if (existsSync(dir) && readdirSync(dir).length > 0)
  fail(
    `${dir} is not empty: a release is assembled in a new or empty directory, so nothing stale is left in it`,
  );
// pnpm as it runs this script (npm_execpath), else the one on PATH
const pnpm = (args: string[], cwd: string) =>
  process.env.npm_execpath === undefined
    ? execFileSync('pnpm', args, { cwd, stdio: 'inherit' })
    : execFileSync(process.execPath, [process.env.npm_execpath, ...args], {
        cwd,
        stdio: 'inherit',
      });

// 1. the bundle, in apps/cli/dist
execFileSync(
  process.execPath,
  [join(cliRoot, 'node_modules/tsx/dist/cli.mjs'), join(cliRoot, 'scripts/bundle.ts')],
  { cwd: cliRoot, stdio: 'inherit' },
);

// 2. the workspace's manifests (not the test support's), the lockfile and the patches: what
//    pnpm needs to install the production dependencies of the CLI and of what it uses
mkdirSync(dir, { recursive: true });
for (const group of ['apps', 'packages']) {
  for (const name of readdirSync(join(repoRoot, group))) {
    const manifest = join(group, name, 'package.json');
    if (name === 'test-support' || !existsSync(join(repoRoot, manifest))) continue;
    mkdirSync(join(dir, group, name), { recursive: true });
    cpSync(join(repoRoot, manifest), join(dir, manifest));
  }
}
for (const file of ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', 'patches'])
  cpSync(join(repoRoot, file), join(dir, file), { recursive: true });
// from the store `pnpm install` filled (no network), hoisted so the bundle's imports resolve from the root
pnpm(
  [
    'install',
    '--offline',
    '--frozen-lockfile',
    '--prod',
    '--ignore-scripts',
    '--config.shamefully-hoist=true',
    '--filter',
    '@domain-index/cli...',
  ],
  dir,
);

// 3. the bundle, and the files the code finds beside its sources: the migrations, the RDAP bootstrap shipped
cpSync(join(cliRoot, 'dist'), join(dir, 'apps/cli/dist'), { recursive: true });
cpSync(join(repoRoot, 'packages/db/drizzle'), join(dir, 'packages/db/drizzle'), {
  recursive: true,
});
mkdirSync(join(dir, 'packages/rdap/src'), { recursive: true });
cpSync(
  join(repoRoot, 'packages/rdap/src/iana-dns-bootstrap.json'),
  join(dir, 'packages/rdap/src/iana-dns-bootstrap.json'),
);
for (const file of ['pnpm-lock.yaml', 'pnpm-workspace.yaml', 'patches'])
  rmSync(join(dir, file), { recursive: true, force: true });

// the driver's patch must be in what runs (patches/postgres@3.4.9.patch): without it a busy pool slows without bound
if (
  !readFileSync(join(dir, 'node_modules/postgres/src/connection.js'), 'utf8').includes(
    'Patched by Domain Index',
  )
)
  fail('the installed postgres driver lacks our patch');
process.stdout.write(
  `assembled the release in ${dir}: run node ${join(dir, 'apps/cli/dist/domain-index.js')}\n`,
);
