/**
 * When a `Retry-After` header (RFC 9110 §10.2.3) allows the next request: `now` plus its delay
 * in seconds, or its HTTP date (never before `now`). Null when absent or unreadable, so that the
 * backoff decides instead.
 */
export function retryAfterDate(value: string | undefined, now: Date): Date | null {
  const text = value?.trim();
  if (text === undefined || text === '') return null;
  if (/^\d+$/.test(text)) return new Date(now.getTime() + Number(text) * 1000);
  if (!/GMT$|\d{4}$/.test(text)) return null;
  const at = Date.parse(/GMT$/.test(text) ? text : `${text} GMT`);
  if (Number.isNaN(at)) return null;
  return new Date(Math.max(at, now.getTime()));
}

/** Capped exponential backoff with jitter: the n-th consecutive failure (from 0) waits between half and all of min(max, base * 2^n). */
export function backoffMs(
  failures: number,
  options: { baseMs: number; maxMs: number; random: () => number },
): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(failures, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * options.random());
}
