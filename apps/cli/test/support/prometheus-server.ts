import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { freePort } from '@domain-index/test-support/waiting';

const run = promisify(execFile);

/** Where Debian's prometheus package puts `prometheus` and `promtool`; PROMETHEUS_BIN_DIR overrides. */
function prometheusBinDir(): string {
  const fromEnv = process.env.PROMETHEUS_BIN_DIR;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : '/usr/bin';
}

let noticeShown = false;

/**
 * Whether the suites that run Prometheus' own programs must be skipped here. In CI (CI=true) a
 * missing program is an error, never a skip: .ci/run installs Debian's prometheus package.
 */
export function prometheusSkipped(): boolean {
  const missing = ['promtool', 'prometheus'].filter((program) => !existsSync(join(prometheusBinDir(), program)));
  if (missing.length === 0) return false;
  if (process.env.CI === 'true')
    throw new Error(`CI=true but ${missing.join(' and ')} ${missing.length > 1 ? 'were' : 'was'} not found in ${prometheusBinDir()}: install Debian's prometheus package (or set PROMETHEUS_BIN_DIR)`);
  if (!noticeShown) {
    noticeShown = true;
    console.warn(`NOTICE: ${missing.join(' and ')} not found in ${prometheusBinDir()}; the suites that run Prometheus are skipped (install Debian's prometheus package, or set PROMETHEUS_BIN_DIR).`);
  }
  return true;
}

/** The outcome of one promtool run: its exit code and what it printed. */
export interface PromtoolRun {
  code: number;
  output: string;
}

/** Runs `promtool ARGS` in `cwd`. */
export async function promtool(args: string[], cwd: string): Promise<PromtoolRun> {
  try {
    const { stdout, stderr } = await run(join(prometheusBinDir(), 'promtool'), args, { cwd });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** A Prometheus server of a test's own, on loopback, with its HTTP API. */
export interface PrometheusServer {
  readonly url: string;
  /** GET /api/v1/<path>, the `data` of a successful answer. */
  api<T>(path: string, params?: Record<string, string>): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Starts Debian's `prometheus` with `config` (YAML text) written to a temporary directory,
 * storing its data there too, and waits until it is ready.
 */
export async function startPrometheus(config: string): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), 'di-prometheus-'));
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(join(prometheusBinDir(), 'prometheus'), [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ]);
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  for (const end = Date.now() + 30_000; ; ) {
    if (child.exitCode !== null) throw new Error(`prometheus exited:\n${output}`);
    const ready = await fetch(`${url}/-/ready`).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > end) {
      await stop();
      throw new Error(`prometheus did not become ready:\n${output}`);
    }
    await sleep(100);
  }
  return {
    url,
    async api<T>(path: string, params: Record<string, string> = {}): Promise<T> {
      const response = await fetch(`${url}/api/v1/${path}?${new URLSearchParams(params).toString()}`);
      const body = (await response.json()) as { status: string; data: T; error?: string };
      if (body.status !== 'success') throw new Error(`Prometheus API ${path}: ${body.error ?? response.status}`);
      return body.data;
    },
    stop,
  };
}
