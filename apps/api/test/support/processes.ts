import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Polls `check` every 100 ms until it holds; fails naming `what` after `ms`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 20_000,
): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting until ${what}`);
}
