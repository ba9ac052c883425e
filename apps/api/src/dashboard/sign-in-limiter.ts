import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { closeRedis, REDIS_DISCONNECT_TIMEOUT_MS } from '../ratelimit/close-redis';
import { redisConnected } from '../ratelimit/redis-connected';

/**
 * Failed sign-ins allowed per account from one client address, and sign-in attempts per client
 * address whatever the accounts; set-password and sign-up posts per client address (each hashes
 * a password). Past them, that address is refused for the rest of the window.
 */
export const SIGN_IN_LIMITS = { perAccountAndAddress: 5, perAddress: 20, newPasswordsPerAddress: 20, windowSeconds: 15 * 60 } as const;

/** The answer of the limiter to an attempt. */
export type SignInGate = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * The counter key of an account at an address: a hash of both, so that a key is 43 characters
 * whatever was typed, and the store holds no email address.
 */
function accountAtAddress(email: string, address: string): string {
  return createHash('sha256').update(`${email}\n${address}`).digest('base64url');
}

/**
 * Sign-in attempts counted per (account, client address) and per client address, in the API
 * limiter's store: in-process when embedded, Redis when REDIS_URL is set (so every instance
 * counts the same attempts). rate-limiter-flexible does the counting and expiry in both stores.
 *
 * Nothing is counted per account alone: then anyone could lock its owner out by failing five
 * times. Guesses at one account are bounded per address, and an address over its limit is
 * refused before anything of the account is counted, so a refused address adds no key to the
 * store however many emails it sends.
 *
 * An attempt takes its points before its password is checked, in one atomic step per counter,
 * so parallel attempts cannot all pass a check made before any of them failed; a success gives
 * them back. Only failures are left counted.
 */
export class SignInLimiter {
  private constructor(
    private readonly perAccountAndAddress: RateLimiterAbstract,
    private readonly perAddress: RateLimiterAbstract,
    private readonly newPasswords: RateLimiterAbstract,
    private readonly redis: Redis | undefined,
  ) {}

  /** In-process, for the embedded default and tests. */
  static inMemory(): SignInLimiter {
    const { perAccountAndAddress, perAddress, newPasswordsPerAddress, windowSeconds } = SIGN_IN_LIMITS;
    return new SignInLimiter(
      new RateLimiterMemory({ keyPrefix: 'signin_account_address', points: perAccountAndAddress, duration: windowSeconds }),
      new RateLimiterMemory({ keyPrefix: 'signin_address', points: perAddress, duration: windowSeconds }),
      new RateLimiterMemory({ keyPrefix: 'new_password_address', points: newPasswordsPerAddress, duration: windowSeconds }),
      undefined,
    );
  }

  /** Shared through Redis by every instance. */
  static redis(url: string, prefix = 'di:signin'): SignInLimiter {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false, disconnectTimeout: REDIS_DISCONNECT_TIMEOUT_MS });
    redis.on('error', () => undefined);
    const { perAccountAndAddress, perAddress, newPasswordsPerAddress, windowSeconds } = SIGN_IN_LIMITS;
    return new SignInLimiter(
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:account-address`, points: perAccountAndAddress, duration: windowSeconds }),
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:address`, points: perAddress, duration: windowSeconds }),
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:new-password`, points: newPasswordsPerAddress, duration: windowSeconds }),
      redis,
    );
  }

  /**
   * Takes a point from the address, then, if it had one, from the account at that address, for
   * a sign-in attempt (or a change of password) before its password is checked. `email` is the
   * normalised address typed. Throws when the store cannot answer.
   */
  async attempt(email: string, address: string): Promise<SignInGate> {
    const byAddress = await take(this.perAddress, address);
    if (!byAddress.allowed) return byAddress;
    return take(this.perAccountAndAddress, accountAtAddress(email, address));
  }

  /** A successful sign-in clears the account's failures at that address and gives back the address's point. */
  async succeeded(email: string, address: string): Promise<void> {
    await Promise.all([this.perAccountAndAddress.delete(accountAtAddress(email, address)), this.perAddress.reward(address, 1)]);
  }

  /** Takes a point from the address for a set-password or sign-up post. Throws when the store cannot answer. */
  async newPassword(address: string): Promise<SignInGate> {
    return take(this.newPasswords, address);
  }

  /** True once the store takes commands (at once in memory); false after `timeoutMs` without Redis. */
  async connected(timeoutMs: number): Promise<boolean> {
    return this.redis === undefined ? true : redisConnected(this.redis, timeoutMs);
  }

  /** Closes the Redis client, whether or not Redis answers. */
  async close(): Promise<void> {
    if (this.redis !== undefined) await closeRedis(this.redis);
  }
}

/**
 * Takes a point. rate-limiter-flexible refuses with a RateLimiterRes (how long until a point is
 * free) and fails with an Error when its store does.
 */
async function take(limiter: RateLimiterAbstract, key: string): Promise<SignInGate> {
  try {
    await limiter.consume(key);
    return { allowed: true };
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
  }
}
