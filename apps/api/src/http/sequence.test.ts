import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { sequence } from './sequence';

const req = Object.create(null) as Request;
const res = Object.create(null) as Response;

/** Runs a sequence and resolves with what it passed to Express's `next`. */
function run(handlers: RequestHandler[]): Promise<unknown> {
  return new Promise((resolve) => {
    sequence(handlers)(req, res, ((error?: unknown) => {
      resolve(error);
    }) as NextFunction);
  });
}

describe('sequence', () => {
  it('runs every middleware in order, one waiting for the one before, then goes on', async () => {
    const seen: string[] = [];
    const outcome = await run([
      (_req, _res, next) => {
        seen.push('first');
        next();
      },
      (_req, _res, next) => {
        // a middleware that answers later (a database round trip) holds the next one back
        setTimeout(() => {
          seen.push('second');
          next();
        }, 5);
      },
      (_req, _res, next) => {
        seen.push('third');
        next();
      },
    ]);
    expect(seen).toEqual(['first', 'second', 'third']);
    expect(outcome).toBeUndefined();
  });

  it('stops at an error passed to next or thrown, and hands it to Express', async () => {
    const boom = new Error('boom');
    const after: string[] = [];
    const later = (_req: Request, _res: Response, next: NextFunction) => {
      after.push('ran');
      next();
    };
    expect(await run([(_req, _res, next) => next(boom), later])).toBe(boom);
    expect(
      await run([
        () => {
          throw boom;
        },
        later,
      ]),
    ).toBe(boom);
    expect(after).toEqual([]);
  });

  it('goes on at once when it holds no middleware', async () => {
    expect(await run([])).toBeUndefined();
  });
});
