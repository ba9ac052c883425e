import { describe, expect, it } from 'vitest';
import {
  AbortError,
  ConnectionError,
  DomainIndexError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  ServiceUnavailableError,
  TimeoutError,
} from '../src';

// instanceof goes by kind so that the ESM and CommonJS builds recognise each other's errors
// (packaging.test.ts loads both); here, that it still means what it says within one build.
describe('instanceof on the error classes', () => {
  it('holds for the class and its ancestors only', () => {
    const timeout = new TimeoutError('late');
    expect(
      timeout instanceof TimeoutError &&
        timeout instanceof ConnectionError &&
        timeout instanceof DomainIndexError &&
        timeout instanceof Error,
    ).toBe(true);
    expect(timeout instanceof AbortError).toBe(false);
    expect(new ConnectionError('down') instanceof TimeoutError).toBe(false);
    expect(new InternalServerError('bug') instanceof ServiceUnavailableError).toBe(true);
    expect(new ServiceUnavailableError('out') instanceof InternalServerError).toBe(false);
    const limited = new PermissionDeniedError('no more alerts', { status: 403, code: 'alert_limit_reached' });
    expect(limited instanceof PermissionDeniedError && limited instanceof DomainIndexError).toBe(true);
    expect(limited instanceof NotFoundError).toBe(false);
    expect(limited).toMatchObject({ name: 'PermissionDeniedError', code: 'alert_limit_reached' });
    for (const value of [new Error('plain'), null, undefined, 'AbortError', { name: 'AbortError' }])
      expect(value instanceof DomainIndexError).toBe(false);
  });

  it("keeps a caller's own subclass to the ordinary prototype check", () => {
    class AppError extends DomainIndexError {}
    expect(new AppError('mine') instanceof AppError).toBe(true);
    expect(new AppError('mine') instanceof DomainIndexError).toBe(true);
    expect(new AbortError('cancelled') instanceof AppError).toBe(false);
    expect(new DomainIndexError('base') instanceof AppError).toBe(false);
  });
});
