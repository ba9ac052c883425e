/**
 * `pnpm --filter @domain-index/bench compare <commit>`: this checkout's API against another
 * commit's, side by side on one dataset, in alternating rounds, printing each shape's ratios.
 *
 * The guard of issue 37: a change on the request path quotes these ratios before it lands
 * (docs/development.md). It is a measurement, not a test: it prints, it never fails on a figure.
 *
 * Both sides run the same `serve` setup (WORKERS=1 so one process is measured, the same
 * PostgreSQL database and Redis), one side at a time, never both at once: within a round the
 * order alternates (A B, then B A), so a machine that warms up or slows down during the run
 * weighs on both alike. Each figure is the median of the rounds.
 *
 * Settings (environment): COMPARE_DATABASE_URL (a database of its own, seeded once with
 * COMPARE_ROWS listings and reused), BENCH_REDIS_URL, COMPARE_ROUNDS, COMPARE_SECONDS (load per
 * shape per round), COMPARE_CONCURRENCY, COMPARE_SHAPES (a comma-separated list of words: only
 * the shapes whose name holds one of them, e.g. `lookup`, for a quicker look at one path; the
 * figures quoted in a closing note come from every shape).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cpuDuring } from './cpu';
import { CLI, ensureDataset, runCli } from './dataset';
import { httpLoad } from './measure';
import { benchKey, startApi, type ServerProcess } from './servers';

const settings = {
  databaseUrl: process.env.COMPARE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/di_compare',
  redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  rows: Number(process.env.COMPARE_ROWS ?? 1_000_000),
  rounds: Number(process.env.COMPARE_ROUNDS ?? 3),
  seconds: Number(process.env.COMPARE_SECONDS ?? 6),
  concurrency: Number(process.env.COMPARE_CONCURRENCY ?? 32),
  shapes: (process.env.COMPARE_SHAPES ?? '')
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== ''),
  seed: 42,
};

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** Where other commits are checked out and built, once each: a cache no tool lints or tests. */
const checkoutsDir = `${repoRoot}node_modules/.cache/domain-index-compare/`;

/** A request the comparison sends; `status` is what every answer must be. */
interface CompareShape {
  name: string;
  path: string;
  status: 200 | 404;
}

function shapesFor(existingName: string): CompareShape[] {
  return [
    { name: 'lookup existing', path: `/api/v1/domains/${existingName}`, status: 200 },
    { name: 'lookup missing', path: '/api/v1/domains/not-listed-anywhere-xyz.com', status: 404 },
    { name: 'default list', path: '/api/v1/domains', status: 200 },
    { name: 'status=all sort=current_bid desc', path: '/api/v1/domains?status=all&sort=current_bid&order=desc', status: 200 },
    { name: 'common term (shop)', path: '/api/v1/domains?search=shop', status: 200 },
    { name: '2-character term (qz)', path: '/api/v1/domains?search=qz', status: 200 },
    { name: 'three terms (an re st)', path: '/api/v1/domains?search=an%20re%20st', status: 200 },
    { name: 'multi-label tld (co.uk)', path: '/api/v1/domains?tld=co.uk', status: 200 },
    { name: 'source + price range', path: '/api/v1/domains?source=namemarket&min_price=100&max_price=500', status: 200 },
    { name: 'ending_within=6', path: '/api/v1/domains?ending_within=6', status: 200 },
    // measured once per 5 minutes and then served from the instance's cache: what is left is the API's own path
    { name: 'stats (warm cache)', path: '/api/v1/stats', status: 200 },
  ];
}

function fail(message: string): never {
  process.stderr.write(`compare: ${message}\n`);
  process.exit(2);
}

/** A side that answered wrongly: thrown, not exited on, so that its server is stopped first. */
class CompareError extends Error {}

function git(args: string[], cwd = repoRoot): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Runs a command in a directory, its output passed to stderr; exits with one line if it fails. */
function run(command: string, args: string[], cwd: string): void {
  // its output goes to stderr: stdout is the comparison alone
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', process.stderr, 'inherit'] });
  if (result.status !== 0) fail(`${command} ${args.join(' ')} failed in ${cwd}`);
}

/** pnpm as the workspace pins it (package.json packageManager), run through npx. */
function pnpm(args: string[], cwd: string): void {
  run('npx', ['-y', 'pnpm@10.34.9', ...args], cwd);
}

/** The other commit, checked out beside this one and built once; its `domain-index` command. */
function checkoutOf(reference: string): { sha: string; cli: string } {
  let sha: string;
  try {
    sha = git(['rev-parse', '--verify', `${reference}^{commit}`]);
  } catch {
    fail(`${reference} is not a commit of this repository`);
  }
  const dir = `${checkoutsDir}${sha.slice(0, 12)}`;
  const built = `${dir}/.compare-built`;
  if (!existsSync(built)) {
    mkdirSync(checkoutsDir, { recursive: true });
    if (!existsSync(dir)) git(['worktree', 'add', '--detach', dir, sha]);
    process.stderr.write(`building ${sha.slice(0, 12)} in ${dir} (once)...\n`);
    pnpm(['install', '--frozen-lockfile'], dir);
    // the program lives in apps/cli since the split of apps/api (issue 38), in apps/api before
    const program = existsSync(`${dir}/apps/cli/bin/domain-index.js`) ? '@domain-index/cli' : '@domain-index/api';
    pnpm(['turbo', 'run', 'build', `--filter=${program}...`], dir);
    writeFileSync(built, `${new Date().toISOString()}\n`);
  }
  const cli = `${dir}/apps/cli/bin/domain-index.js`;
  return { sha, cli: existsSync(cli) ? cli : `${dir}/apps/api/bin/domain-index.js` };
}

interface Side {
  label: string;
  cli: string;
}

interface Sample {
  rps: number;
  apiCpuUs: number;
  postgresCpuUs: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function startSide(side: Side): Promise<ServerProcess> {
  return startApi(
    { DATABASE_URL: settings.databaseUrl, REDIS_URL: settings.redisUrl, WORKERS: '1', HOST: '127.0.0.1' },
    side.cli,
  );
}

/** One side's load over every shape, after a warm-up; the server is started and stopped here. */
async function measureSide(side: Side, shapes: CompareShape[], key: string): Promise<Map<string, Sample>> {
  const server = await startSide(side);
  const headers = { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' };
  const samples = new Map<string, Sample>();
  try {
    for (const shape of shapes) await httpLoad(`${server.url}${shape.path}`, headers, 1, settings.concurrency);
    for (const shape of shapes) {
      const { result, cpu } = await cpuDuring(server.pid, () =>
        httpLoad(`${server.url}${shape.path}`, headers, settings.seconds, settings.concurrency),
      );
      const wrong = shape.status === 200 ? result.non2xx : result.requests - result.non2xx;
      if (result.errors > 0 || wrong > 0)
        throw new CompareError(`${side.label} answered ${shape.name} wrongly: ${wrong} answers other than ${shape.status}, ${result.errors} errors`);
      samples.set(shape.name, {
        rps: result.rps,
        apiCpuUs: (cpu.api * 1000) / result.requests,
        postgresCpuUs: (cpu.postgres * 1000) / result.requests,
      });
    }
  } finally {
    await server.stop();
  }
  return samples;
}

const reference = process.argv[2];
if (reference === undefined || reference.startsWith('-'))
  fail('usage: pnpm --filter @domain-index/bench compare <commit> (the commit to measure this checkout against)');

const other = checkoutOf(reference);
const head = git(['rev-parse', '--short=12', 'HEAD']);
const dirty = git(['status', '--porcelain', '--untracked-files=no']) === '' ? '' : ' + uncommitted changes';
const before: Side = { label: `${other.sha.slice(0, 12)} (before)`, cli: other.cli };
const after: Side = { label: `${head}${dirty} (this checkout)`, cli: CLI };

const dataset = await ensureDataset(settings.databaseUrl, settings.rows, settings.seed);
// The other commit may ship migrations this one lacks (comparing a later branch): apply them too.
await runCli(['migrate'], { DATABASE_URL: settings.databaseUrl, LOG_LEVEL: 'warn' }, other.cli);
const key = await benchKey(settings.databaseUrl);

const probe = await startSide(after);
let existingName: string;
try {
  const answer = await fetch(`${probe.url}/api/v1/domains?limit=1`, { headers: { authorization: `Bearer ${key}` } });
  existingName = ((await answer.json()) as { data: { domain_name: string }[] }).data[0]!.domain_name;
} finally {
  await probe.stop();
}
const shapes = shapesFor(existingName).filter(
  (shape) => settings.shapes.length === 0 || settings.shapes.some((word) => shape.name.includes(word)),
);
if (shapes.length === 0) fail(`COMPARE_SHAPES=${settings.shapes.join(',')} names no shape: ${shapesFor(existingName).map((shape) => shape.name).join(', ')}`);

process.stderr.write(
  `comparing ${after.label} with ${before.label}: ${dataset.listings.toLocaleString('en-US')} listings, ` +
    `${settings.rounds} rounds, ${settings.seconds} s per shape, concurrency ${settings.concurrency}, WORKERS=1\n`,
);
const results = { before: new Map<string, Sample[]>(), after: new Map<string, Sample[]>() };
try {
  for (let round = 0; round < settings.rounds; round += 1) {
    const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    for (const which of order) {
      const side = which === 'before' ? before : after;
      process.stderr.write(`round ${round + 1}/${settings.rounds}: ${side.label}\n`);
      for (const [name, sample] of await measureSide(side, shapes, key))
        results[which].set(name, [...(results[which].get(name) ?? []), sample]);
    }
  }
} catch (error) {
  if (error instanceof CompareError) fail(error.message);
  throw error;
}

const rows = shapes.map((shape) => {
  const b = results.before.get(shape.name)!;
  const a = results.after.get(shape.name)!;
  const rpsB = median(b.map((s) => s.rps));
  const rpsA = median(a.map((s) => s.rps));
  const cpuB = median(b.map((s) => s.apiCpuUs));
  const cpuA = median(a.map((s) => s.apiCpuUs));
  const pgB = median(b.map((s) => s.postgresCpuUs));
  const pgA = median(a.map((s) => s.postgresCpuUs));
  return { shape: shape.name, rpsBefore: rpsB, rpsAfter: rpsA, rpsRatio: rpsA / rpsB, apiCpuBefore: cpuB, apiCpuAfter: cpuA, apiCpuRatio: cpuA / cpuB, postgresCpuBefore: pgB, postgresCpuAfter: pgA, rounds: { before: b, after: a } };
});

const fixed = (value: number, digits = 2) => value.toFixed(digits);
const whole = (value: number) => Math.round(value).toLocaleString('en-US');
process.stdout.write(
  [
    `before: ${before.label}`,
    `after:  ${after.label}`,
    `${dataset.listings.toLocaleString('en-US')} listings, ${settings.rounds} alternating rounds, ${settings.seconds} s per shape, concurrency ${settings.concurrency}, WORKERS=1; medians of the rounds`,
    '',
    '| shape | req/s before | after | ratio (>= 0.95) | API CPU us/req before | after | ratio (<= 1.05) | PostgreSQL CPU us/req before | after |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.shape} | ${whole(r.rpsBefore)} | ${whole(r.rpsAfter)} | ${fixed(r.rpsRatio)}${r.rpsRatio < 0.95 ? ' (below)' : ''} | ${whole(r.apiCpuBefore)} | ${whole(r.apiCpuAfter)} | ${fixed(r.apiCpuRatio)}${r.apiCpuRatio > 1.05 ? ' (above)' : ''} | ${whole(r.postgresCpuBefore)} | ${whole(r.postgresCpuAfter)} |`,
    ),
    '',
  ].join('\n'),
);
const resultsFile = process.env.COMPARE_RESULTS_FILE;
if (resultsFile !== undefined)
  writeFileSync(resultsFile, `${JSON.stringify({ before: before.label, after: after.label, settings, listings: dataset.listings, rows }, null, 2)}\n`);
