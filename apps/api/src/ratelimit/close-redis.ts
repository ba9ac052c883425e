import type { Redis } from 'ioredis';
import { answersWithin } from '@domain-index/runtime/answers-within';

/**
 * ioredis's wait for a stream to close after disconnect(), 2 s by default; its timer is left
 * running when the stream had already closed (Redis away), holding a stopping process that long.
 */
export const REDIS_DISCONNECT_TIMEOUT_MS = 200;

/**
 * Closes a client that queues nothing while disconnected: QUIT when Redis is there to hear it
 * (for at most `timeoutMs`), then disconnect() always. QUIT alone fails at once while Redis is
 * away and leaves the client reconnecting forever, which kept `serve` alive after SIGTERM.
 */
export async function closeRedis(redis: Redis, timeoutMs = 1_000): Promise<void> {
  if (redis.status === 'ready') await answersWithin(redis.quit().then(() => true), timeoutMs);
  redis.disconnect();
}
