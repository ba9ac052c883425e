import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, postgresTestEngine, type TestDatabase } from '@domain-index/db/testing';
import { parser } from '@prometheus-io/lezer-promql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { auctionRecord } from '@domain-index/test-support/feeds';
import { startFeedServer, type FeedServer } from '@domain-index/test-support/feed-server';
import { startCommand, startServe, type ServeProcess } from './support/processes';
import { freePort, until } from '@domain-index/test-support/waiting';
import { prometheusSkipped, promtool, startPrometheus, type PrometheusServer } from './support/prometheus-server';

const deploy = fileURLToPath(new URL('../../../deploy/prometheus/', import.meta.url));
const read = (file: string) => readFileSync(join(deploy, file), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  annotations?: Record<string, string>;
}
interface RuleTest {
  alertname: string;
  exp_alerts?: unknown[] | null;
}

const rules = (parseYaml(read('alert-rules.yml')) as { groups: { rules: Rule[] }[] }).groups.flatMap((group) => group.rules);
const alerts = rules.map((rule) => rule.alert);

/** Metrics Prometheus makes itself for every target: no process of ours exports them. */
const SCRAPE_METRICS = new Set(['up']);

/** The metric names a PromQL expression selects, read with Prometheus' own grammar. */
function selectedNames(expr: string): string[] {
  const cursor = parser.parse(expr).cursor();
  const names: string[] = [];
  do {
    if (cursor.type.isError) throw new Error(`PromQL syntax error at ${cursor.from}: ${expr}`);
    if (cursor.name === 'Identifier' && cursor.node.parent?.name === 'VectorSelector') names.push(expr.slice(cursor.from, cursor.to));
  } while (cursor.next());
  return names;
}

/** Every metric the rules name: in their expressions and in the queries of their annotations. */
const ruleMetrics = [
  ...new Set(
    rules.flatMap((rule) => [
      ...selectedNames(rule.expr),
      ...Object.values(rule.annotations ?? {}).flatMap((text) => [...text.matchAll(/printf `([^`]+)`/g)].flatMap((match) => selectedNames(match[1]!))),
    ]),
  ),
].filter((name) => !SCRAPE_METRICS.has(name));

const skipped = prometheusSkipped();

describe.skipIf(skipped)('the shipped alert rules, checked by promtool', () => {
  it('are valid rules, and the example Prometheus configuration loads them', async () => {
    const checked = await promtool(['check', 'rules', 'alert-rules.yml'], deploy);
    expect(checked.output).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(checked.code).toBe(0);
    const config = await promtool(['check', 'config', 'prometheus.yml'], deploy);
    expect(config.output).toContain('SUCCESS: 1 rule files found');
    expect(config.code, config.output).toBe(0);
  });

  it('pass their unit tests, which have every alert both firing and not firing', async () => {
    const tests = (parseYaml(read('alert-rules.test.yml')) as { tests: { alert_rule_test?: RuleTest[] }[] }).tests.flatMap((test) => test.alert_rule_test ?? []);
    const firing = new Set(tests.filter((test) => (test.exp_alerts ?? []).length > 0).map((test) => test.alertname));
    const quiet = new Set(tests.filter((test) => (test.exp_alerts ?? []).length === 0).map((test) => test.alertname));
    expect([...firing].sort()).toEqual([...alerts].sort());
    expect([...quiet].sort()).toEqual([...alerts].sort());
    const tested = await promtool(['test', 'rules', 'alert-rules.test.yml'], deploy);
    expect(tested.code, tested.output).toBe(0);
    expect(tested.output).toContain('SUCCESS');
  });

  it('fail their unit tests with the overdue rule that took the stalest of two workers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'di-rules-'));
    try {
      cpSync(deploy, dir, { recursive: true });
      const fixed = 'time() - max by (source) (domain_index_sync_last_success_timestamp_seconds)';
      const shipped = read('alert-rules.yml');
      expect(shipped).toContain(fixed);
      writeFileSync(join(dir, 'alert-rules.yml'), shipped.replace(fixed, 'max by (source) (time() - domain_index_sync_last_success_timestamp_seconds)'));
      const tested = await promtool(['test', 'rules', 'alert-rules.test.yml'], dir);
      expect(tested.code).toBe(1);
      expect(tested.output).toMatch(/FAILED:[\s\S]*alertname: DomainIndexSourceSyncOverdue[\s\S]*source="bidhaus"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

describe.skipIf(skipped || postgresTestEngine().skip)(
  'the alert rules on a real Prometheus scraping serve and two sync workers',
  () => {
    let test: TestDatabase;
    let good: FeedServer;
    let gone: FeedServer;
    let prometheus: PrometheusServer | undefined;
    const processes: ServeProcess[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'di-alerts-'));
    const admins = { api: '', sync1: '', sync2: '' };
    let api = '';

    beforeAll(async () => {
      test = await createTestDatabase('postgres');
      const feed = `${['one.com', 'two.net', 'three.org'].map((name) => JSON.stringify(auctionRecord(name))).join('\n')}\n`;
      // slow enough that the second worker starts while the first still holds the source's lock
      good = await startFeedServer([{ status: 200, body: feed, delayMs: 10_000 }]);
      gone = await startFeedServer([{ status: 404, body: 'no such feed' }]);
      const sourcesFile = join(dir, 'sources.json');
      writeFileSync(sourcesFile, JSON.stringify([
        { id: 'loop', name: 'Loopback', everyMinutes: 60, feed: good.url, format: 'jsonl' },
        { id: 'gone', name: 'Gone', everyMinutes: 60, feed: gone.url, format: 'jsonl' },
      ]));
      const [port, apiAdmin, sync1Admin, sync2Admin] = [await freePort(), await freePort(), await freePort(), await freePort()];
      api = `http://127.0.0.1:${port}`;
      Object.assign(admins, { api: `127.0.0.1:${apiAdmin}`, sync1: `127.0.0.1:${sync1Admin}`, sync2: `127.0.0.1:${sync2Admin}` });
      const env = { DATABASE_URL: test.url!, SOURCES_FILE: sourcesFile, LOG_LEVEL: 'info' };
      const serve = startServe({ ...env, PORT: String(port), HOST: '127.0.0.1', ADMIN_PORT: String(apiAdmin) });
      const sync1 = startCommand(['sync'], { ...env, ADMIN_PORT: String(sync1Admin) });
      processes.push(serve, sync1);
      await until('the first worker fetches the feed', () => good.requests === 1, 90_000);
      processes.push(startCommand(['sync'], { ...env, ADMIN_PORT: String(sync2Admin) }));
      for (const [name, address] of Object.entries(admins))
        await until(`${name} is ready`, async () => {
          for (const started of processes)
            if (started.child.exitCode !== null) throw new Error(`a process exited early:\n${started.output()}`);
          return (await fetch(`http://${address}/readyz`).catch(() => undefined))?.status === 200;
        }, 60_000);

      // the shipped example configuration, its targets replaced by these processes
      const config = parseYaml(read('prometheus.yml')) as {
        global: Record<string, string>;
        rule_files: string[];
        scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
      };
      const targets: Record<string, string[]> = { 'domain-index-api': [admins.api], 'domain-index-sync': [admins.sync1, admins.sync2] };
      expect(config.scrape_configs.map((job) => job.job_name).sort()).toEqual(Object.keys(targets).sort());
      config.global = { scrape_interval: '1s', evaluation_interval: '1s' };
      config.rule_files = config.rule_files.map((file) => join(deploy, file));
      for (const job of config.scrape_configs) job.static_configs = [{ targets: targets[job.job_name]! }];
      prometheus = await startPrometheus(stringifyYaml(config));
    }, 120_000);

    afterAll(async () => {
      await prometheus?.stop();
      for (const started of processes) started.child.kill('SIGTERM');
      await Promise.race([Promise.all(processes.map((started) => started.exited)), sleep(15_000)]);
      for (const started of processes) started.child.kill('SIGKILL');
      await Promise.all([good.close(), gone.close()]);
      await test.dispose();
      rmSync(dir, { recursive: true, force: true });
    });

    const query = (expr: string) => prometheus!.api<{ result: Sample[] }>('query', { query: expr }).then((data) => data.result);

    it('scrapes every process, finds every metric the rules name, and evaluates every rule without error', { timeout: 240_000 }, async () => {
      // a request, so that the API's request histogram has a series
      expect((await fetch(`${api}/api/v1/stats`)).status).toBe(401);
      await until('Prometheus scrapes all three processes', async () => {
        const up = await query('up');
        return up.length === 3 && up.every((sample) => sample.value[1] === '1');
      }, 30_000);
      await until('every metric the rules name is scraped', async () => {
        for (const name of ruleMetrics) if ((await query(`count({__name__="${name}"})`)).length === 0) return false;
        return true;
      }, 30_000);
      const ready = await query('domain_index_ready');
      expect(ready.map((sample) => `${sample.metric.job} ${sample.metric.instance} ${sample.value[1]}`).sort()).toEqual(
        [`domain-index-api ${admins.api} 1`, `domain-index-sync ${admins.sync1} 1`, `domain-index-sync ${admins.sync2} 1`].sort(),
      );
      await until('every rule has been evaluated', async () => {
        const { groups } = await prometheus!.api<{ groups: { rules: { name: string; health: string; lastError?: string }[] }[] }>('rules');
        const evaluated = groups.flatMap((group) => group.rules);
        for (const rule of evaluated) expect(rule.lastError ?? '', rule.name).toBe('');
        return evaluated.length === alerts.length && evaluated.every((rule) => rule.health === 'ok');
      }, 30_000);
    });

    it('hears the same source state from both workers, the one that skipped included, and pends exactly the alerts that apply', { timeout: 240_000 }, async () => {
      await until('the first worker applies the batch', async () => (await query('domain_index_sync_batches_total{source="loop", outcome="switched"} == 1')).length === 1, 90_000);
      expect(processes[2]!.output()).toContain('sync skipped: another worker is syncing this source');
      // the worker that skipped rereads the database: both report the one success
      await until('both workers report the same last success', async () => {
        const success = await query('domain_index_sync_last_success_timestamp_seconds{source="loop"}');
        return success.length === 2 && success[0]!.value[1] === success[1]!.value[1];
      }, 40_000);
      await until('both workers report the failed source', async () => (await query('domain_index_sync_last_outcome{source="gone", outcome="failed"} == 1')).length === 2, 90_000);
      // until: the source is tried again a minute after a failure, which may fall between the two workers' rereads
      await until('both workers report the same failures in a row', async () => {
        const failures = (await query('domain_index_sync_consecutive_failures{source="gone"}')).map((sample) => Number(sample.value[1]));
        return failures.length === 2 && failures[0] === failures[1] && failures[0]! >= 1;
      }, 40_000);
      const pending = async () => {
        const { alerts: active } = await prometheus!.api<{ alerts: { labels: Record<string, string>; state: string }[] }>('alerts');
        return active.map((alert) => `${alert.labels.alertname} ${alert.labels.source ?? ''} ${alert.labels.outcome ?? ''} ${alert.state}`.replace(/ +/g, ' ')).sort();
      };
      const expected = ['DomainIndexBatchRejected gone failed pending', 'DomainIndexSourceNeverSynced gone pending'];
      await until('the failed source pends its alerts', async () => {
        const list = await pending();
        return expected.every((alert) => list.includes(alert));
      }, 20_000);
      // two evaluations later, still those two and nothing else (no overdue source, no target down)
      const since = Date.now();
      await until('the rules are evaluated twice more', async () => {
        const { groups } = await prometheus!.api<{ groups: { lastEvaluation: string }[] }>('rules');
        return groups.every((group) => Date.parse(group.lastEvaluation) > since + 2_000);
      }, 20_000);
      expect(await pending()).toEqual(expected);
    });
  },
);
