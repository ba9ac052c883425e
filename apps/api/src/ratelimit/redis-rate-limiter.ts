import { Redis } from 'ioredis';
import {
  currentWindow,
  decide,
  RateLimiterUnavailableError,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitPolicy,
} from './rate-limiter';
import { closeRedis, REDIS_DISCONNECT_TIMEOUT_MS } from './close-redis';
import { redisConnected } from './redis-connected';

/**
 * Increment and set the expiry in one atomic step: Redis runs a script alone, so any number
 * of API instances share each counter exactly. The expiry outlives the window so a counter is
 * never dropped while its window is open.
 */
const CONSUME_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count`;

/** Longest a limiter call may take before the request is refused as unmetered. */
const COMMAND_TIMEOUT_MS = 1_000;

/** The client with the script as a command: ioredis sends it by its SHA1 (EVALSHA), loading it once. */
type WithConsume = Redis & { consumeWindow(key: string, expirySeconds: number): Promise<unknown> };

/** Counters in Redis, shared by every API instance (REDIS_URL). */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: WithConsume;

  constructor(url: string, private readonly prefix = 'di:rl') {
    const redis = new Redis(url, {
      // Fail at once while disconnected instead of queueing: refused, never served unmetered.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // Keep reconnecting in the background so service resumes when Redis returns.
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      lazyConnect: false,
      disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS,
    });
    // Sent by its SHA1 rather than as text on every request; ioredis reloads it if Redis lost it.
    redis.defineCommand('consumeWindow', { numberOfKeys: 1, lua: CONSUME_SCRIPT });
    this.redis = redis as WithConsume;
    this.redis.on('error', () => {
      /* reported per request as 503 rate_limit_unavailable; reconnection is automatic */
    });
  }

  async consume(keyId: string, policy: RateLimitPolicy, now: Date): Promise<RateLimitDecision> {
    const { start, resetAt } = currentWindow(policy, now);
    let count: unknown;
    try {
      count = await this.redis.consumeWindow(`${this.prefix}:${keyId}:${policy.windowSeconds}:${start}`, policy.windowSeconds * 2);
    } catch (error) {
      throw new RateLimiterUnavailableError('the rate-limit store is unavailable', { cause: error });
    }
    if (typeof count !== 'number') throw new RateLimiterUnavailableError('the rate-limit store gave no count');
    return decide(policy, count, resetAt);
  }

  /** True once Redis takes commands; false if it did not within `timeoutMs` (see redisConnected). */
  connected(timeoutMs: number): Promise<boolean> {
    return redisConnected(this.redis, timeoutMs);
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }
}
