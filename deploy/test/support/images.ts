import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, run } from './tools';

/** The images one run of the suite builds once and reuses. */
export interface TestImages {
  /** Debian bookworm + Node from npm, equal in content to node:20-bookworm-slim */
  base: string;
  /** the Dockerfile's image, built on `base` */
  app: string;
  /** PostgreSQL, Redis and PgBouncer from Debian's packages on `base` */
  services: string;
  /** Prometheus from Debian's package on `base`, with the official image's entrypoint and user */
  prometheus: string;
  version: string;
  revision: string;
}

const timings: string[] = [];

async function timed<T>(what: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const value = await work();
  timings.push(`${what} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return value;
}

/** What building took, for the suite's log. */
export function buildTimings(): string {
  return timings.join(', ');
}

/**
 * Builds the images with the classic builder (DOCKER_BUILDKIT=0): it needs neither buildx nor a
 * BuildKit daemon, so Debian's docker.io alone is enough; the Dockerfile works with both.
 */
export async function buildImages(): Promise<TestImages> {
  const env = { ...process.env, DOCKER_BUILDKIT: '0' };
  const base = (
    await timed('base image', () =>
      run('bash', [join(repoRoot, 'deploy/test/support/base-image.sh')]),
    )
  ).stdout.trim();
  const version = (
    JSON.parse(readFileSync(join(repoRoot, 'apps/cli/package.json'), 'utf8')) as { version: string }
  ).version;
  const revision = (await run('git', ['rev-parse', 'HEAD'])).stdout.trim();
  const app = 'domain-index-test/app:latest';
  await timed('app image', () =>
    run(
      'nice',
      [
        '-n',
        '19',
        'docker',
        'build',
        '--quiet',
        '--build-arg',
        `NODE_IMAGE=${base}`,
        '--build-arg',
        `VERSION=${version}`,
        '--build-arg',
        `REVISION=${revision}`,
        '--build-arg',
        'SOURCE=domain-index',
        '-t',
        app,
        '.',
      ],
      { env },
    ),
  );
  // the stand-ins for the official images, from deploy/test/support's Dockerfiles on `base`
  const standIn = async (what: string, dockerfile: string, tag: string) => {
    await timed(what, () =>
      run(
        'docker',
        ['build', '--quiet', '--build-arg', `BASE=${base}`, '-f', dockerfile, '-t', tag, '.'],
        { env, cwd: join(repoRoot, 'deploy/test/support') },
      ),
    );
    return tag;
  };
  const services = await standIn(
    'services image',
    'services.Dockerfile',
    'domain-index-test/services:latest',
  );
  const prometheus = await standIn(
    'prometheus image',
    'prometheus.Dockerfile',
    'domain-index-test/prometheus:latest',
  );
  return { base, app, services, prometheus, version, revision };
}
