import { Writable } from 'node:stream';
import { AlertContext } from '@domain-index/alerts/alert-deps';
import type { Database } from '@domain-index/db';
import { systemClock } from '@domain-index/runtime/clock';
import { loadCursorSecret } from '@domain-index/runtime/cursor-secret';
import { createLogger } from '@domain-index/runtime/logger';
import type { AllowList } from '@domain-index/webhooks/address-rules';
import { deliveryTask } from '@domain-index/worker/alerts/delivery-worker';

/**
 * The worker's alert delivery as the suites drive it, a turn at a time: on the suite's
 * database, webhooks allowed to `allowList` (the suites' loopback receivers), links built on
 * `publicUrl`, a short retry schedule (at once, then 1 s, 1 s), nothing logged.
 */
export async function suiteDeliveryTask(database: Database, publicUrl: string, allowList: AllowList) {
  const context = new AlertContext(database, { allowList });
  return deliveryTask({
    database,
    clock: systemClock,
    logger: createLogger('silent', new Writable({ write: (_chunk, _encoding, done) => done() })),
    publicUrl,
    secret: await loadCursorSecret(database),
    secretBox: () => context.secretBox(),
    allowList,
    schedule: [0, 1, 1],
    disableAfterMs: 3_600_000,
  });
}
