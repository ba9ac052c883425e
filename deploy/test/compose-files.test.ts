import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findProgram, repoRoot, requireTool, run } from './support/tools';

// The files compose.yaml's profile `ops` mounts, checked without Docker.
const promtool = process.env.PROMETHEUS_BIN_DIR
  ? join(process.env.PROMETHEUS_BIN_DIR, 'promtool')
  : findProgram('promtool');
const runs = requireTool('promtool (Debian package prometheus)', promtool !== undefined);

describe.skipIf(!runs)("compose.yaml's Prometheus", () => {
  const dir = mkdtempSync(join(tmpdir(), 'di-compose-prometheus-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads the shipped alert rules, as mounted, and scrapes the jobs they name', async () => {
    // mounted side by side in /etc/prometheus, as compose.yaml does
    copyFileSync(join(repoRoot, 'deploy/compose/prometheus.yml'), join(dir, 'prometheus.yml'));
    copyFileSync(join(repoRoot, 'deploy/prometheus/alert-rules.yml'), join(dir, 'alert-rules.yml'));
    const checked = await run(promtool!, ['check', 'config', 'prometheus.yml'], { cwd: dir });
    expect(checked.stdout + checked.stderr).toMatch(/SUCCESS: 1 rule files found/);
    const config = readFileSync(join(dir, 'prometheus.yml'), 'utf8');
    const rules = readFileSync(join(dir, 'alert-rules.yml'), 'utf8');
    for (const job of ['domain-index-api', 'domain-index-sync']) {
      expect(config).toContain(`job_name: ${job}`);
      expect(rules).toContain(job);
    }
    // every process of the stack is a target, on the image's admin port
    for (const target of ['api-1:9464', 'api-2:9464', 'worker:9464'])
      expect(config).toContain(target);
    const compose = readFileSync(join(repoRoot, 'compose.yaml'), 'utf8');
    expect(compose).toContain('./deploy/compose/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
    expect(compose).toContain(
      './deploy/prometheus/alert-rules.yml:/etc/prometheus/alert-rules.yml:ro',
    );
  });
});
