import { randomUUID } from 'node:crypto';
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

/** Adds a cost only when all of it fits the limit: returns {1, count} when counted, {0, count} when not. */
const RESERVE_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local cost = tonumber(ARGV[2])
if count + cost > tonumber(ARGV[3]) then return {0, count} end
count = redis.call('INCRBY', KEYS[1], cost)
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {1, count}`;

/**
 * A slot of a bounded set (a sorted set of holders scored by their lease's end): expired
 * leases are dropped first, so a holder that died frees its slot within a lease.
 */
const ACQUIRE_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/** Longest a limiter call may take before the request is refused as unmetered. */
const COMMAND_TIMEOUT_MS = 1_000;

/** The client with the script as a command: ioredis sends it by its SHA1 (EVALSHA), loading it once. */
type WithConsume = Redis & {
  consumeWindow(key: string, expirySeconds: number): Promise<unknown>;
  reserveWindow(key: string, expirySeconds: number, cost: number, limit: number): Promise<unknown>;
  acquireSlot(key: string, now: number, leaseEnd: number, max: number, holder: string, expiryMs: number): Promise<unknown>;
};

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
    redis.defineCommand('reserveWindow', { numberOfKeys: 1, lua: RESERVE_SCRIPT });
    redis.defineCommand('acquireSlot', { numberOfKeys: 1, lua: ACQUIRE_SCRIPT });
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

  async reserve(keyId: string, policy: RateLimitPolicy, now: Date, cost: number): Promise<RateLimitDecision> {
    const { start, resetAt } = currentWindow(policy, now);
    let answer: unknown;
    try {
      answer = await this.redis.reserveWindow(`${this.prefix}:${keyId}:${policy.windowSeconds}:${start}`, policy.windowSeconds * 2, cost, policy.limit);
    } catch (error) {
      throw new RateLimiterUnavailableError('the rate-limit store is unavailable', { cause: error });
    }
    if (!Array.isArray(answer) || typeof answer[1] !== 'number') throw new RateLimiterUnavailableError('the rate-limit store gave no count');
    return { ...decide(policy, answer[1], resetAt), allowed: answer[0] === 1 };
  }

  /** Slots shared by every instance on this Redis; a lease renewed while held. */
  async acquireSlot(name: string, max: number, leaseMs: number): Promise<(() => Promise<void>) | undefined> {
    const key = `${this.prefix}:slots:${name}`;
    const holder = randomUUID();
    const take = (now: number) => this.redis.acquireSlot(key, now, now + leaseMs, max, holder, leaseMs * 2);
    let taken: unknown;
    try {
      taken = await take(Date.now());
    } catch (error) {
      throw new RateLimiterUnavailableError('the rate-limit store is unavailable', { cause: error });
    }
    if (taken !== 1) return undefined;
    const renew = setInterval(() => {
      this.redis.zadd(key, 'XX', Date.now() + leaseMs, holder).catch(() => undefined);
    }, Math.max(1_000, Math.floor(leaseMs / 3)));
    renew.unref();
    return async () => {
      clearInterval(renew);
      await this.redis.zrem(key, holder).catch(() => undefined);
    };
  }

  /** True once Redis takes commands; false if it did not within `timeoutMs` (see redisConnected). */
  connected(timeoutMs: number): Promise<boolean> {
    return redisConnected(this.redis, timeoutMs);
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }
}
