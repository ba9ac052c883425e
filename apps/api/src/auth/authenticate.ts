import type { Database } from '@domain-index/db';
import type { NextFunction, Request, Response } from 'express';

/** Any request whose headers can be read (ts-rest's typed requests included). */
type WithHeaders = Pick<Request, 'get'>;
import type { Clock } from '@domain-index/runtime/clock';
import type { ApiMetrics } from '../ops/api-metrics';
import type { ReadNodes } from '../replicas/read-nodes';
import { ApiError } from '@domain-index/api-errors/api-error';
import { databaseFault } from '@domain-index/api-errors/query-failed';
import type { Logger } from '@domain-index/runtime/logger';
import { isWellFormedKey } from '@domain-index/accounts/api-key';
import type { KeyCheckRequest, ResponseLocals } from '../listings/lookup-with-key';
import { checkKey } from './check-key';
import { findKey, keyAccount, revokeKey, touchKey, type StoredKey } from '@domain-index/accounts/key-store';
import { recordAudit } from '@domain-index/audit/audit';
import type { PlanCache, Plan } from './plan-cache';
import { databaseOf, readsOf } from '../http/request-deadline';
import { requestNow } from '../http/request-now';

/** What authentication established about a request, for the steps after it. */
export interface Caller {
  keyId: string;
  plan: Plan;
}

/** Every 401 carries this challenge, identical for all of them. */
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="domain-index"' };
/** One answer for malformed, unknown and revoked keys: nothing tells them apart. */
const invalidKey = () => new ApiError('invalid_api_key', 'the API key is not valid', undefined, CHALLENGE);
/** `last_used_at` is written at most this often per key, not on every request. */
const TOUCH_EVERY_MS = 60_000;
const BEARER = /^Bearer ([^\s]+)$/i;
const keyLookupUnavailable = (cause: unknown) =>
  new ApiError('key_lookup_unavailable', 'the API key could not be checked right now; please retry', undefined, {}, cause);

/**
 * Steps 2 and 3 of decisions.md: who is calling (401s, 503 key_lookup_unavailable) and on which
 * plan (503 plan_lookup_unavailable). Sets `res.locals.caller`.
 */
export function authenticate(deps: {
  database: Database;
  reads: ReadNodes;
  metrics: ApiMetrics;
  clock: Clock;
  logger: Logger;
  plans: PlanCache;
  /** A key check that also reads what the route needs (lookups), or undefined for the plain one. */
  keyCheck?: (req: KeyCheckRequest, res: ResponseLocals, key: string) => Promise<StoredKey | undefined> | undefined;
}) {
  const touched = new Map<string, number>();
  return (req: WithHeaders & KeyCheckRequest, res: Response, next: NextFunction): void => {
    void (async () => {
      const header = req.get('authorization');
      if (header === undefined) {
        throw new ApiError('missing_api_key', 'send your API key in the header Authorization: Bearer <API_KEY>', undefined, CHALLENGE);
      }
      const match = BEARER.exec(header.trim());
      if (match === null) {
        throw new ApiError('invalid_authorization_header', 'the Authorization header must be "Bearer <API_KEY>"', undefined, CHALLENGE);
      }
      const key = match[1]!;
      if (!isWellFormedKey(key)) throw invalidKey();
      let stored;
      try {
        const combined = deps.keyCheck?.(req, res, key);
        stored = await checkKey(readsOf(res, deps), key, requestNow(res, deps.clock), combined === undefined ? undefined : () => combined);
      } catch (cause) {
        throw databaseFault(cause, keyLookupUnavailable);
      }
      if (stored === undefined || !stored.active) throw invalidKey();
      const plan = await deps.plans.resolve(stored.planId, readsOf(res, deps), requestNow(res, deps.clock).getTime());
      if (plan === undefined) {
        throw new ApiError('plan_lookup_unavailable', "the key's plan could not be resolved, so its limit is unknown; please retry");
      }
      res.locals.caller = { keyId: stored.id, plan } satisfies Caller;
      const now = requestNow(res, deps.clock);
      if (now.getTime() - (touched.get(stored.id) ?? -Infinity) >= TOUCH_EVERY_MS) {
        touched.set(stored.id, now.getTime());
        deps.metrics.timeQuery('key_touch', 'primary', () => touchKey(databaseOf(res, deps), stored.id, now)).catch((error: unknown) => {
          deps.logger.warn({ err: error, keyId: stored.id }, 'could not record key use');
        });
      }
    })().then(() => next(), next);
  };
}

/**
 * A key seen in a URL is treated as leaked: if it is an active key, it is revoked at once, and
 * its account's audit log says from which address. `where` says where in the URL it was:
 * `path`, or `query parameter <name>`.
 */
export function revokeLeakedKey(deps: { database: Database; clock: Clock; logger: Logger }) {
  return async (where: string, value: unknown, address: string, res: ResponseLocals): Promise<void> => {
    const database = databaseOf(res, deps);
    const values = Array.isArray(value) ? value : [value];
    for (const candidate of values) {
      if (typeof candidate !== 'string' || !isWellFormedKey(candidate)) continue;
      try {
        const stored = await findKey(database, candidate, deps.clock.now());
        if (stored === undefined || !stored.active) continue;
        const at = deps.clock.now();
        await revokeKey(database, stored.id, `leaked: sent in the URL ${where}`, at, 'key revoked as leaked');
        deps.logger.warn({ keyId: stored.id, where }, 'revoked an API key sent in a URL');
        const accountId = await keyAccount(database, stored.id);
        if (accountId !== null) {
          await recordAudit(database.db, { accountId, at, kind: 'key_revoked_leaked', ip: address, keyId: stored.id, detail: `sent in the URL ${where}` });
        }
      } catch (error) {
        deps.logger.error({ err: error, where }, 'could not revoke an API key sent in a URL');
      }
    }
  };
}
