import type { RequestHandler } from 'express';
import type { Caller } from '../auth/authenticate';
import type { Clock } from '@domain-index/runtime/clock';
import type { RequestLogRecorder } from './request-log-recorder';

/**
 * Hands every request that authenticated with a key to the request log once its response is
 * finished: its time, path, status, error code, duration, rows and request id. Nothing is
 * redacted or written here; the recorder does that in batches.
 */
export function recordRequests(recorder: RequestLogRecorder, clock: Clock): RequestHandler {
  return (req, res, next) => {
    const at = clock.now().getTime();
    const started = performance.now();
    // a response finishes once: `on` spares the wrapper `once` allocates per request
    res.on('finish', () => {
      const caller = res.locals.caller as Caller | undefined;
      if (caller === undefined) return;
      recorder.record({
        at,
        keyId: caller.keyId,
        requestId: res.locals.requestId as string,
        method: req.method,
        url: req.originalUrl,
        status: res.statusCode,
        errorCode: res.locals.errorCode as string | undefined,
        durationMs: performance.now() - started,
        rows: (res.locals.rowsReturned as number | undefined) ?? 0,
      });
    });
    next();
  };
}
