import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './waiting';

let noticeShown = false;

/** The shared Redis of the machine (TEST_REDIS_URL); in CI a missing one is an error, not a skip. */
export function testRedisUrl(): string | undefined {
  const url = process.env.TEST_REDIS_URL;
  if ((url === undefined || url === '') && process.env.CI === 'true') {
    throw new Error('CI=true but TEST_REDIS_URL is not set: the Redis suites must run in CI');
  }
  if ((url === undefined || url === '') && !noticeShown) {
    noticeShown = true;
    console.warn('NOTICE: TEST_REDIS_URL is not set; Redis suites are skipped.');
  }
  return url === '' ? undefined : url;
}

/**
 * A Redis server of the test's own (the machine's redis-server binary on a free port), so a
 * test can stop and restart it without disturbing the shared one.
 */
export class OwnRedis {
  private process: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.resume();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (or restarts) the server on the same port and waits until it accepts connections. */
  async resume(): Promise<void> {
    this.process = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    for (let i = 0; i < 100; i += 1) {
      const ok = await new Promise<boolean>((resolve) => {
        const socket = connect(this.port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
      if (ok) return;
      await sleep(50);
    }
    throw new Error('redis-server did not start');
  }

  /** Kills the server, as a crash would. */
  async stop(): Promise<void> {
    const child = this.process;
    // a server killed earlier has a signalCode and no exitCode: a second stop must not wait for it
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
