import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages, buildTimings, type TestImages } from './support/images';
import {
  dockerRuns,
  findProgram,
  freePort,
  repoRoot,
  requireTool,
  run,
  waitFor,
} from './support/tools';

// compose.yaml as an operator runs it, on images built here: the Dockerfile on a base image
// made like node:20-bookworm-slim (Docker Hub is out of reach), and PostgreSQL and Redis from
// Debian's packages in an image of the same base (deploy/test/support/services.Dockerfile).
const composeV2 = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0;
const compose = composeV2 ? ['docker', 'compose'] : ['docker-compose'];
const runs =
  requireTool('a running Docker engine', dockerRuns()) &&
  requireTool(
    'docker compose or docker-compose',
    composeV2 || findProgram('docker-compose') !== undefined,
  );

describe.skipIf(!runs)('compose.yaml on the Dockerfile image', () => {
  const project = `di-test-${process.pid}`;
  const dir = mkdtempSync(join(tmpdir(), 'di-compose-'));
  const envFile = join(dir, '.env');
  const password = randomBytes(18).toString('hex');
  let images: TestImages;
  let ports: [number, number];
  let prometheusPort: number;
  let key: string;

  const dc = (...args: string[]) =>
    run(compose[0]!, [
      ...compose.slice(1),
      '-p',
      project,
      '--env-file',
      envFile,
      '-f',
      join(repoRoot, 'compose.yaml'),
      ...args,
    ]);
  const containerOf = async (service: string) => (await dc('ps', '-q', service)).stdout.trim();
  const inspect = async (container: string, format: string) =>
    (await run('docker', ['inspect', '--format', format, container])).stdout.trim();

  beforeAll(async () => {
    const started = Date.now();
    images = await buildImages();
    ports = [await freePort(), await freePort()];
    prometheusPort = await freePort();
    writeFileSync(
      envFile,
      [
        `POSTGRES_PASSWORD=${password}`,
        // the profile ops, with every process's database connections through its PgBouncer
        'COMPOSE_PROFILES=demo,ops',
        'DATABASE_HOST=pgbouncer',
        'DATABASE_URL_OPTIONS=?pgbouncer=true',
        'DEMO_ROWS=2000',
        `DOMAIN_INDEX_IMAGE=${images.app}`,
        `POSTGRES_IMAGE=${images.services}`,
        `REDIS_IMAGE=${images.services}`,
        `PGBOUNCER_IMAGE=${images.services}`,
        `PROMETHEUS_IMAGE=${images.prometheus}`,
        `API_1_PORT=127.0.0.1:${ports[0]}`,
        `API_2_PORT=127.0.0.1:${ports[1]}`,
        `PROMETHEUS_PORT=127.0.0.1:${prometheusPort}`,
        '',
      ].join('\n'),
    );
    await dc('up', '-d', '--no-build');
    const up = Date.now();
    for (const port of ports) {
      await waitFor(
        `/readyz on ${port}`,
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/readyz`, {
            signal: AbortSignal.timeout(2000),
          });
          return response.status === 200 ? true : undefined;
        },
        180_000,
      );
    }
    const ready = Date.now();
    // the demo data is loaded by its one-shot service, which ends with 0
    const demo = await containerOf('demo-data');
    await waitFor(
      'the demo data',
      async () =>
        (await inspect(demo, '{{.State.Status}} {{.State.ExitCode}}')) === 'exited 0'
          ? true
          : undefined,
      300_000,
    );
    key = (
      await dc('run', '--rm', '-T', '--no-deps', 'migrate', 'keys', 'create', '--plan', 'pro')
    ).stdout.trim();
    console.log(
      `images: ${buildTimings()}; both instances ready ${((ready - up) / 1000).toFixed(1)} s after compose up, ` +
        `demo data and a key ${((Date.now() - ready) / 1000).toFixed(1)} s later; ${((Date.now() - started) / 1000).toFixed(1)} s in all`,
    );
  });

  afterAll(async () => {
    if (runs)
      await dc('down', '-v', '--remove-orphans').catch((error: unknown) => console.error(error));
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers /readyz ready on both API instances and a search with a key the operator made', async () => {
    for (const port of ports) {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('ready\n');
    }
    expect(await inspect(await containerOf('migrate'), '{{.State.ExitCode}}')).toBe('0');
    expect(key).toMatch(/^dix_live_/);
    for (const port of ports) {
      const response = await fetch(
        `http://127.0.0.1:${port}/api/v1/domains?search=cloud&status=all&limit=5`,
        { headers: { authorization: `Bearer ${key}` } },
      );
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: { domain_name: string }[] };
      expect(body.data.length).toBeGreaterThan(0);
      for (const row of body.data) expect(row.domain_name).toContain('cloud');
    }
  });

  it('runs every role as the unprivileged user node, with no secret in the image', async () => {
    for (const service of ['api-1', 'api-2', 'worker']) {
      const container = await containerOf(service);
      expect((await run('docker', ['exec', container, 'id', '-u'])).stdout.trim()).toBe('1000');
      const pid1 = (
        await run('docker', ['exec', container, 'cat', '/proc/1/cmdline'])
      ).stdout.split('\0')[0];
      expect(pid1).toBe('/usr/bin/tini');
    }
    const config = await inspect(images.app, '{{json .Config}}');
    expect(config).not.toContain(password);
    expect(config).not.toMatch(/DATABASE_URL|REDIS_URL/);
    const history = (await run('docker', ['history', '--no-trunc', images.app])).stdout;
    expect(history).not.toContain(password);
  });

  it('labels the image with the version --version and /health report, and its revision', async () => {
    const labels = JSON.parse(await inspect(images.app, '{{json .Config.Labels}}')) as Record<
      string,
      string
    >;
    expect(labels['org.opencontainers.image.version']).toBe(images.version);
    expect(labels['org.opencontainers.image.revision']).toBe(images.revision);
    expect(labels['org.opencontainers.image.source']).toBe('domain-index');
    const printed = (await run('docker', ['run', '--rm', images.app, '--version'])).stdout.trim();
    expect(printed).toBe(images.version);
    const health = (
      await run('docker', [
        'exec',
        await containerOf('api-1'),
        'node',
        '-e',
        "fetch('http://127.0.0.1:9464/health').then(r=>r.json()).then(h=>console.log(h.version))",
      ])
    ).stdout.trim();
    expect(health).toBe(images.version);
  });

  it('goes through PgBouncer with the profile ops: PostgreSQL sees no connection from the API, the worker or migrate', async () => {
    const postgres = await containerOf('postgres');
    const pgbouncer = await containerOf('pgbouncer');
    const pgbouncerAddress = await inspect(
      pgbouncer,
      '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}',
    );
    // a search on each instance opens server connections, if it has none yet
    for (const port of ports) {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/stats`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
    }
    const clients = (
      await run('docker', [
        'exec',
        postgres,
        'psql',
        '-U',
        'domain_index',
        '-d',
        'domain_index',
        '-Atc',
        "select distinct host(client_addr) from pg_stat_activity where backend_type = 'client backend' and client_addr is not null",
      ])
    ).stdout
      .trim()
      .split('\n');
    expect(clients).toEqual([pgbouncerAddress]);
  });

  it('runs Prometheus with the profile ops: the shipped rules loaded, both instances and the worker scraped', async () => {
    const prometheus = `http://127.0.0.1:${prometheusPort}/api/v1`;
    const shipped = readFileSync(join(repoRoot, 'deploy/prometheus/alert-rules.yml'), 'utf8');
    const alertNames = [...shipped.matchAll(/^\s*- alert: (\S+)/gm)].map((match) => match[1]);
    expect(alertNames.length).toBeGreaterThan(0);
    const rules = await waitFor(
      "Prometheus' rules",
      async () => {
        const response = await fetch(`${prometheus}/rules`).catch(() => undefined);
        if (response?.status !== 200) return undefined;
        const body = (await response.json()) as {
          data: { groups: { rules: { name: string }[] }[] };
        };
        return body.data.groups.flatMap((group) => group.rules.map((rule) => rule.name));
      },
      60_000,
    );
    expect([...rules].sort()).toEqual([...alertNames].sort());
    // every target up: scraped at least once (every 15 s) since the stack came up
    const targets = await waitFor(
      'every target up',
      async () => {
        const response = await fetch(`${prometheus}/targets`);
        const body = (await response.json()) as {
          data: { activeTargets: { labels: { job: string; instance: string }; health: string }[] };
        };
        const active = body.data.activeTargets;
        return active.length === 3 && active.every((target) => target.health === 'up')
          ? active.map((target) => `${target.labels.job} ${target.labels.instance}`).sort()
          : undefined;
      },
      90_000,
    );
    expect(targets).toEqual([
      'domain-index-api api-1:9464',
      'domain-index-api api-2:9464',
      'domain-index-sync worker:9464',
    ]);
  });

  it('reports healthy through its HEALTHCHECK, and stops on SIGTERM with code 0 within its grace', async () => {
    const container = await containerOf('api-1');
    await waitFor(
      'api-1 healthy',
      async () =>
        (await inspect(container, '{{.State.Health.Status}}')) === 'healthy' ? true : undefined,
      60_000,
    );
    const started = Date.now();
    await dc('stop', 'api-1');
    const took = Date.now() - started;
    expect(await inspect(container, '{{.State.ExitCode}}')).toBe('0');
    // SHUTDOWN_DELAY_MS (5 s) held, well inside stop_grace_period (20 s)
    expect(took).toBeGreaterThanOrEqual(5_000);
    expect(took).toBeLessThan(20_000);
    // the other instance still serves
    const response = await fetch(`http://127.0.0.1:${ports[1]}/api/v1/stats`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);

    const worker = await containerOf('worker');
    const workerStarted = Date.now();
    await dc('stop', 'worker');
    expect(await inspect(worker, '{{.State.ExitCode}}')).toBe('0');
    expect(Date.now() - workerStarted).toBeLessThan(20_000);
  });
});
