import { setTimeout as sleep } from 'node:timers/promises';

export { freePort } from '@domain-index/db/clusters';

/**
 * Polls `check` every 100 ms until it holds; fails naming `what` after `ms`. The default deadline
 * is generous: a process started on a loaded 2-core runner can take tens of seconds to listen.
 */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 60_000,
): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting until ${what}`);
}
