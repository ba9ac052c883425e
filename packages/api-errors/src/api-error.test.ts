import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error';

const FRAME = /\n\s+at /;

describe('ApiError', () => {
  it('captures no stack of its own: it is an answer, and its stack is never read', () => {
    const error = new ApiError('not_found', 'no listing named rdj.com');
    expect(error.stack).not.toMatch(FRAME);
    expect(error.toBody()).toEqual({ code: 'not_found', message: 'no listing named rdj.com' });
    expect(error.status).toBe(404);
  });

  it('keeps the stack of its cause, which a 5xx writes to the log', () => {
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const error = new ApiError('query_failed', 'the query could not complete; please retry', undefined, {}, cause);
    expect(error.cause).toBe(cause);
    expect(cause.stack).toMatch(FRAME);
  });

  it('leaves the process-wide stack trace limit as it found it, for every other error', () => {
    const before = Error.stackTraceLimit;
    try {
      Error.stackTraceLimit = 3;
      new ApiError('invalid_domain', 'not a domain');
      expect(Error.stackTraceLimit).toBe(3);
      expect(new Error('after').stack).toMatch(FRAME);
    } finally {
      Error.stackTraceLimit = before;
    }
    new ApiError('invalid_domain', 'not a domain');
    expect(Error.stackTraceLimit).toBe(before);
  });
});
