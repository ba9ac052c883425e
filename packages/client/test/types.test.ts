import * as contract from '@domain-index/contract';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as client from '../src';

// The client's types are generated from the contract at build time; these checks (run by tsc
// and by vitest) fail if the two ever drift apart.
describe('types generated from the contract', () => {
  it('match the contract exactly', () => {
    expectTypeOf<client.Domain>().toEqualTypeOf<contract.Domain>();
    expectTypeOf<client.ListEnvelope>().toEqualTypeOf<contract.ListEnvelope>();
    expectTypeOf<client.LookupEnvelope>().toEqualTypeOf<contract.LookupEnvelope>();
    expectTypeOf<client.StatsEnvelope>().toEqualTypeOf<contract.StatsEnvelope>();
    expectTypeOf<client.ErrorCode>().toEqualTypeOf<contract.ErrorCode>();
    expectTypeOf<Required<client.SearchParams>>().toEqualTypeOf<Required<NonNullable<contract.SearchParams>>>();
    expectTypeOf<client.Event>().toEqualTypeOf<contract.Event>();
    expectTypeOf<client.EventListEnvelope>().toEqualTypeOf<contract.EventListEnvelope>();
    expectTypeOf<client.EventType>().toEqualTypeOf<contract.EventType>();
    expectTypeOf<Required<client.EventParams>>().toEqualTypeOf<Required<NonNullable<contract.EventParams>>>();
  });
  it('type error codes by the ErrorCode union, each family by its own codes', () => {
    expectTypeOf<client.DomainIndexError['code']>().toEqualTypeOf<contract.ErrorCode | undefined>();
    expectTypeOf<client.RateLimitError['code']>().toEqualTypeOf<'rate_limited'>();
    expectTypeOf<client.AuthenticationError['code']>().toEqualTypeOf<'missing_api_key' | 'invalid_authorization_header' | 'invalid_api_key'>();
    expectTypeOf<client.AbortError['code']>().toEqualTypeOf<undefined>();
    expectTypeOf<client.CursorExpiredError['code']>().toEqualTypeOf<'cursor_expired'>();
    // instanceof narrows (through the classes' Symbol.hasInstance)
    const narrow = (error: unknown) => (error instanceof client.RateLimitError ? error.retryAfter : undefined);
    expectTypeOf(narrow).returns.toEqualTypeOf<number | undefined>();
  });
  it('carry the same error codes and enumerations', () => {
    expect(client.ERROR_STATUS).toEqual(contract.ERROR_STATUS);
    expect(client.SORT_FIELDS).toEqual(contract.SORT_FIELDS);
    expect(client.STATUS_FILTERS).toEqual(contract.STATUS_FILTERS);
    expect(client.EVENT_TYPES).toEqual(contract.EVENT_TYPES);
  });
});
