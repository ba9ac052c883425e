import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '@domain-index/runtime/logger';

/**
 * Work done once a response is finished (its last byte handed to the socket), with how long the
 * request took: the metrics, the usage counts and the request log. Never called for a request
 * whose client left before its response finished.
 */
export type Finisher = (req: Request, res: Response, durationMs: number) => void;

/**
 * Runs every finisher when the response finishes, from one 'finish' listener: each of them
 * listening for itself made a closure and a listener per request each (bench/notes/80). One
 * finisher that throws does not keep the others from running: its failure is one error line.
 */
export function afterResponse(finishers: readonly Finisher[], logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    // a response finishes once: `on` spares the wrapper `once` allocates per request
    res.on('finish', () => {
      const durationMs = performance.now() - started;
      for (const finish of finishers) {
        try {
          finish(req, res, durationMs);
        } catch (error) {
          // a defect of ours; thrown from an event listener it would take the process down
          logger.error({ err: error }, 'work after a response failed');
        }
      }
    });
    next();
  };
}
