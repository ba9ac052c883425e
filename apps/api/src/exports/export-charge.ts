import { EXPORT_LIMITS, exportCost } from '@domain-index/contract';
import { ApiError } from '@domain-index/api-errors/api-error';
import { RateLimiterUnavailableError, type RateLimiter } from '../ratelimit/rate-limiter';
import { limiterUnavailable } from './listing-exports';

/** What an export is counted against: a key's hourly allowance, or an account's downloads. */
export interface ExportAllowance {
  /** The rate limiter's bucket the rows count in (a key's id, an account's download bucket). */
  bucket: string;
  planId: string;
  /** Rows one export may stream; null for no cap beyond the hourly allowance. */
  exportRowsMax: number | null;
  limit: number;
  windowSeconds: number;
  /** Requests already counted for this one before its count was known (an API request: 1, by the rate-limit step). */
  alreadyCounted: number;
  /** The words a refusal is said in, for the one who reads it. */
  words: {
    /** "export" (the API) or "download" (the dashboard). */
    noun: string;
    /** Who has what is left, with its verb: "this key has", "your account's downloads have". */
    holder: string;
    /** How to make it smaller: "narrow the filters". */
    narrow: string;
    /** When to retry, from the seconds until the window resets: "retry after 12 s". */
    retry: (seconds: number) => string;
  };
  /** Told what the rate limiter has left, granted or refused (the API's RateLimit headers). */
  onDecision?: (remaining: number, secondsToReset: number) => void;
}

/**
 * The cost of an export of `count` rows, all of it or none: the plan's cap on one export's rows
 * (403 export_too_large), then one request per started 1,000 rows reserved in the allowance's
 * bucket (429 rate_limited with the numbers and Retry-After). The API's route and the dashboard's download
 * both charge through here, so an export costs the same whoever asks for it.
 */
export async function chargeExport(
  limiter: RateLimiter,
  allowance: ExportAllowance,
  count: number,
  now: Date,
): Promise<void> {
  const { words } = allowance;
  if (allowance.exportRowsMax !== null && count > allowance.exportRowsMax) {
    throw new ApiError(
      'export_too_large',
      `this ${words.noun} would stream ${count} rows and your plan (${allowance.planId}) allows ${allowance.exportRowsMax} per export: ${words.narrow}, or move to a plan with more`,
    );
  }
  const cost = exportCost(count);
  const toReserve = cost - allowance.alreadyCounted;
  if (toReserve <= 0) return;
  let decision;
  try {
    decision = await limiter.reserve(
      allowance.bucket,
      { limit: allowance.limit, windowSeconds: allowance.windowSeconds },
      now,
      toReserve,
    );
  } catch (error) {
    if (error instanceof RateLimiterUnavailableError) throw limiterUnavailable(error);
    throw error;
  }
  const secondsToReset = Math.max(0, Math.ceil(decision.resetAt - now.getTime() / 1000));
  allowance.onDecision?.(decision.remaining, secondsToReset);
  if (!decision.allowed) {
    throw new ApiError(
      'rate_limited',
      `this ${words.noun} would stream ${count} rows, which costs ${cost} requests (one per started ${EXPORT_LIMITS.rowsPerRequest} rows); ${words.holder} ${decision.remaining + allowance.alreadyCounted} left in the current window${allowance.alreadyCounted > 0 ? ', this request included' : ''}: ${words.retry(secondsToReset)}, or ${words.narrow}`,
      undefined,
      { 'Retry-After': String(secondsToReset) },
    );
  }
}
