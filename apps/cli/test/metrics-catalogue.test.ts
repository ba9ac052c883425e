import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parser } from '@prometheus-io/lezer-promql';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ApiMetrics } from '@domain-index/api/ops/api-metrics';
import { Readiness, readinessRegistry } from '@domain-index/runtime/readiness';
import { SyncMetrics } from '@domain-index/worker/ops/sync-metrics';
import { registerPoolMetrics } from '@domain-index/runtime/pool-metrics';
import { DeliveryMetrics } from '@domain-index/worker/alerts/delivery-metrics';
import { RegistrationMetrics } from '@domain-index/worker/names/registration-metrics';
import { systemClock } from '@domain-index/runtime/clock';
import { migrateDatabase, openDatabase } from '@domain-index/db';
import { parseExposition } from './support/prometheus';

const repoFile = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url)), 'utf8');

/** Every series name the API and the sync worker expose (histograms by their _bucket, _sum and _count). */
async function exposedNames(): Promise<Set<string>> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const api = new ApiMetrics(registry);
  const sync = new SyncMetrics(registry);
  // labelled histograms and gauges are written once they have a series: give them one
  api.requestDuration.observe({ method: 'GET', route: '/api/v1/stats', status: '200' }, 0.01);
  api.queryDuration.observe({ kind: 'stats', node: 'primary' }, 0.01);
  api.queryErrors.inc({ kind: 'stats', node: 'primary', failure: 'unavailable' }, 0);
  sync.lastSuccess.set({ source: 'a' }, 1);
  sync.interval.set({ source: 'a' }, 3600);
  sync.lastOutcome.set({ source: 'a', outcome: 'failed' }, 1);
  sync.consecutiveFailures.set({ source: 'a' }, 1);
  sync.nextDue.set({ source: 'a' }, 3601);
  // a real pool, never connected (postgres.js connects on its first statement): its gauges have series
  const pool = await openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/unused' });
  registerPoolMetrics(registry, () => [{ node: 'primary', database: pool }]);
  // the outbox gauges read a real database: the embedded one, empty
  const embedded = await openDatabase({ dataDir: 'memory://' });
  await migrateDatabase(embedded);
  new DeliveryMetrics(registry, embedded, systemClock);
  // the registration checks' counter has a series once a check is counted
  new RegistrationMetrics(registry, embedded, systemClock).checked({ domainName: 'a.com', outcome: 'found', server: 'https://rdap.example/', phase: 'registered', moved: null, nextCheckAt: null, reason: null });
  const text = `${await registry.metrics()}${await readinessRegistry(new Readiness(undefined)).metrics()}`;
  await pool.close();
  await embedded.close();
  return new Set(parseExposition(text).map((series) => series.name));
}

/** Our own metric families (not prom-client's process defaults), by name. */
async function ownFamilies(): Promise<Set<string>> {
  const registry = new Registry();
  new ApiMetrics(registry);
  new SyncMetrics(registry);
  registerPoolMetrics(registry, () => []);
  const unused = await openDatabase({ dataDir: 'memory://' });
  new DeliveryMetrics(registry, unused, systemClock);
  new RegistrationMetrics(registry, unused, systemClock);
  const readiness = readinessRegistry(new Readiness(undefined));
  return new Set([...(await registry.getMetricsAsJSON()), ...(await readiness.getMetricsAsJSON())].map((metric) => metric.name));
}

describe('the metrics catalogue', () => {
  it('docs/operating.md lists every metric of our own, and nothing else', async () => {
    const page = repoFile('docs/operating.md');
    const section = page.slice(page.indexOf('\n## Metrics\n'), page.indexOf('\n## Prometheus alerts\n'));
    const listed = new Set(
      [...section.matchAll(/^\| `([a-z_:]+)` \|/gm)].map((match) => match[1]!),
    );
    expect(listed).toEqual(await ownFamilies());
  });

  it('the example alert rules parse as PromQL and name only metrics the processes expose', async () => {
    const file = parseYaml(repoFile('deploy/prometheus/alert-rules.yml')) as {
      groups: {
        name: string;
        rules: {
          alert: string;
          expr: string;
          for?: string;
          labels?: { severity?: string };
          annotations?: { summary?: string };
        }[];
      }[];
    };
    const exposed = await exposedNames();
    const rules = file.groups.flatMap((group) => group.rules);
    expect(rules.map((rule) => rule.alert)).toEqual([
      'DomainIndexTargetDown',
      'DomainIndexNotReady',
      'DomainIndexSourceSyncOverdue',
      'DomainIndexSourceNeverSynced',
      'DomainIndexBatchRejected',
      'DomainIndexHighServerErrorRate',
      'DomainIndexRateLimitBackendUnavailable',
      'DomainIndexDbPoolSaturated',
      'DomainIndexWebhookBacklog',
      'DomainIndexRegistrationChecksBehind',
    ]);
    for (const rule of rules) {
      expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/);
      expect(['warning', 'critical'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      const tree = parser.parse(rule.expr);
      const cursor = tree.cursor();
      const names: string[] = [];
      do {
        expect(cursor.type.isError, `${rule.alert}: PromQL syntax error at ${cursor.from}`).toBe(
          false,
        );
        if (cursor.name === 'Identifier' && cursor.node.parent?.name === 'VectorSelector')
          names.push(rule.expr.slice(cursor.from, cursor.to));
      } while (cursor.next());
      expect(names.length, rule.alert).toBeGreaterThan(0);
      // `up` is Prometheus' own series of every target
      for (const name of names.filter((selected) => selected !== 'up')) expect(exposed, `${rule.alert} names ${name}`).toContain(name);
    }
  });

  it('a broken expression or an unknown metric would be caught', async () => {
    const broken = parser.parse('sum(rate(http_request_duration_seconds_count[5m]) >');
    let error = false;
    const cursor = broken.cursor();
    do error ||= cursor.type.isError;
    while (cursor.next());
    expect(error).toBe(true);
    expect(await exposedNames()).not.toContain('domain_index_sync_last_success_seconds');
  });
});
