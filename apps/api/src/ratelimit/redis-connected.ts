import type { Redis } from 'ioredis';

/**
 * Resolves true once `redis` can take commands, false after `timeoutMs` without it.
 *
 * The limiters queue nothing while disconnected (a request is refused rather than served
 * unmetered), so a process that listens before its client is ready answers its first requests
 * 503 for no reason. Start-up waits here; a Redis that stays away is not fatal, because the
 * client keeps reconnecting and requests meanwhile get 503 rate_limit_unavailable, retryable.
 */
export async function redisConnected(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise((resolve) => {
    const done = (connected: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(connected);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}
