import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { redisConnected } from '../ratelimit/redis-connected';

/**
 * Sign-in attempts allowed per account and per client address, and set-password and sign-up
 * posts per client address (each hashes a password), before they are refused for a while.
 */
export const SIGN_IN_LIMITS = { perAccount: 5, perAddress: 20, newPasswordsPerAddress: 20, windowSeconds: 15 * 60 } as const;

/** The answer of the limiter to an attempt. */
export type SignInGate = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Sign-in attempts counted per account (email) and per client address, in the API limiter's
 * store: in-process when embedded, Redis when REDIS_URL is set (so every instance counts the
 * same attempts). rate-limiter-flexible does the counting and expiry in both stores.
 *
 * An attempt takes its point before its password is checked, in one atomic step per counter, so
 * parallel attempts cannot all pass a check made before any of them failed; a success gives the
 * point back. Only failures are left counted.
 */
export class SignInLimiter {
  private constructor(
    private readonly perAccount: RateLimiterAbstract,
    private readonly perAddress: RateLimiterAbstract,
    private readonly newPasswords: RateLimiterAbstract,
    private readonly redis: Redis | undefined,
  ) {}

  /** In-process, for the embedded default and tests. */
  static inMemory(): SignInLimiter {
    const { perAccount, perAddress, newPasswordsPerAddress, windowSeconds } = SIGN_IN_LIMITS;
    return new SignInLimiter(
      new RateLimiterMemory({ keyPrefix: 'signin_account', points: perAccount, duration: windowSeconds }),
      new RateLimiterMemory({ keyPrefix: 'signin_address', points: perAddress, duration: windowSeconds }),
      new RateLimiterMemory({ keyPrefix: 'new_password_address', points: newPasswordsPerAddress, duration: windowSeconds }),
      undefined,
    );
  }

  /** Shared through Redis by every instance. */
  static redis(url: string, prefix = 'di:signin'): SignInLimiter {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
    redis.on('error', () => undefined);
    const { perAccount, perAddress, newPasswordsPerAddress, windowSeconds } = SIGN_IN_LIMITS;
    return new SignInLimiter(
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:account`, points: perAccount, duration: windowSeconds }),
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:address`, points: perAddress, duration: windowSeconds }),
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:new-password`, points: newPasswordsPerAddress, duration: windowSeconds }),
      redis,
    );
  }

  /**
   * Takes a point from the account and from the address for a sign-in attempt, before its
   * password is checked. Throws when the store cannot answer.
   */
  async attempt(email: string, address: string): Promise<SignInGate> {
    return gate(await Promise.allSettled([this.perAccount.consume(email), this.perAddress.consume(address)]));
  }

  /** A successful sign-in clears the account's failures and gives back the address's point. */
  async succeeded(email: string, address: string): Promise<void> {
    await Promise.all([this.perAccount.delete(email), this.perAddress.reward(address, 1)]);
  }

  /** Takes a point from the address for a set-password or sign-up post. Throws when the store cannot answer. */
  async newPassword(address: string): Promise<SignInGate> {
    return gate(await Promise.allSettled([this.newPasswords.consume(address)]));
  }

  /** True once the store takes commands (at once in memory); false after `timeoutMs` without Redis. */
  async connected(timeoutMs: number): Promise<boolean> {
    return this.redis === undefined ? true : redisConnected(this.redis, timeoutMs);
  }

  async close(): Promise<void> {
    if (this.redis !== undefined) await this.redis.quit().catch(() => undefined);
  }
}

/**
 * Allowed when every counter had a point left. rate-limiter-flexible refuses with a
 * RateLimiterRes (how long until a point is free) and fails with an Error when its store does.
 */
function gate(results: PromiseSettledResult<RateLimiterRes>[]): SignInGate {
  const refusals: RateLimiterRes[] = [];
  for (const result of results) {
    if (result.status === 'fulfilled') continue;
    if (!(result.reason instanceof RateLimiterRes)) throw result.reason;
    refusals.push(result.reason);
  }
  if (refusals.length === 0) return { allowed: true };
  const wait = Math.max(...refusals.map((refusal) => refusal.msBeforeNext));
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
}
