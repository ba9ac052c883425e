import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { until } from './waiting';

const sinkScript = fileURLToPath(new URL('./smtp-sink.ts', import.meta.url));
const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** A message the SMTP sink received: the SMTP envelope and the raw message. */
export interface ReceivedMail {
  /** The user it authenticated as (null: none). */
  user: string | null;
  from: string | null;
  to: string[];
  raw: Buffer;
}

/** A real SMTP server in a child process on a loopback port (the edge of the outside world). */
export interface SmtpSink {
  readonly port: number;
  readonly messages: readonly ReceivedMail[];
  /** Usernames of refused logins. */
  readonly failedLogins: readonly string[];
  /** Waits until `count` messages have arrived. */
  waitForMessages(count: number, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

type SinkEvent =
  | { event: 'listening'; port: number }
  | { event: 'auth_failed'; username: string }
  | { event: 'message'; user: string | null; from: string | null; to: string[]; raw: string };

/** Starts smtp-sink.ts with the one user (and password) it accepts. */
export async function startSmtpSink(account: {
  user: string;
  password: string;
}): Promise<SmtpSink> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', sinkScript], {
    cwd: packageRoot,
    env: {
      PATH: process.env.PATH ?? '',
      SMTP_SINK_USER: account.user,
      SMTP_SINK_PASSWORD: account.password,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const messages: ReceivedMail[] = [];
  const failedLogins: string[] = [];
  let port = 0;
  let stderr = '';
  let pending = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const event = JSON.parse(line) as SinkEvent;
      if (event.event === 'listening') port = event.port;
      else if (event.event === 'auth_failed') failedLogins.push(event.username);
      else
        messages.push({
          user: event.user,
          from: event.from,
          to: event.to,
          raw: Buffer.from(event.raw, 'base64'),
        });
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await until('the SMTP sink listens', () => port !== 0 || child.exitCode !== null, 20_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  if (port === 0) throw new Error(`the SMTP sink exited: ${stderr}`);
  return {
    port,
    messages,
    failedLogins,
    waitForMessages: (count, ms = 10_000) =>
      until(`${count} messages arrived at the SMTP sink`, () => messages.length >= count, ms),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
