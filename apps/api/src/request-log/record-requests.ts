import type { Finisher } from '../http/after-response';
import type { Caller } from '../auth/authenticate';
import type { Clock } from '@domain-index/runtime/clock';
import type { RequestLogRecorder } from './request-log-recorder';
import { requestNow } from '../http/request-now';

/**
 * Hands every request that authenticated with a key to the request log once its response is
 * finished: its time, path, status, error code, duration, rows and request id. Nothing is
 * redacted or written here; the recorder does that in batches.
 */
export function recordRequests(recorder: RequestLogRecorder, clock: Clock): Finisher {
  return (req, res, durationMs) => {
    const caller = res.locals.caller as Caller | undefined;
    if (caller === undefined) return;
    recorder.record({
      // the request's own time: read when it authenticated, which every logged request did
      at: requestNow(res, clock).getTime(),
      keyId: caller.keyId,
      requestId: res.locals.requestId as string,
      method: req.method,
      url: req.originalUrl,
      status: res.statusCode,
      errorCode: res.locals.errorCode as string | undefined,
      durationMs,
      rows: (res.locals.rowsReturned as number | undefined) ?? 0,
    });
  };
}
