import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middlewares that every request passes, run one after the other as one Express layer. Express
 * pays for each layer it dispatches (a path match, its `next` bookkeeping) whether or not the
 * layer does anything; for the ten small steps every request takes before its route that was a
 * few per cent of a lookup's CPU (bench notes 80). Each middleware keeps its own file and its
 * own meaning: one may call `next` later (after a database round trip) or with an error, and
 * what it throws goes to the error handler, as it would from a layer of its own.
 */
export function sequence(handlers: readonly RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    new Walk(handlers, req, res, next).step();
  };
}

/**
 * One request's way through the handlers. A class rather than a closure made per request: the
 * service runs under tsx, whose compiler names every function kept in a variable by redefining
 * its `name` when it is made, and that redefinition of a per-request closure was several
 * microseconds of every lookup (bench/notes/80). A bound method is not renamed.
 */
class Walk {
  private index = 0;
  /** The `next` each handler is given. */
  readonly step: (error?: unknown) => void;

  constructor(
    private readonly handlers: readonly RequestHandler[],
    private readonly req: Request,
    private readonly res: Response,
    private readonly done: NextFunction,
  ) {
    this.step = this.advance.bind(this);
  }

  private advance(error?: unknown): void {
    if (error !== undefined && error !== null) {
      this.done(error);
      return;
    }
    const handler = this.handlers[this.index];
    this.index += 1;
    if (handler === undefined) {
      this.done();
      return;
    }
    try {
      handler(this.req, this.res, this.step);
    } catch (thrown) {
      this.done(thrown);
    }
  }
}
