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
  });
  it('carry the same error codes and enumerations', () => {
    expect(client.ERROR_STATUS).toEqual(contract.ERROR_STATUS);
    expect(client.SORT_FIELDS).toEqual(contract.SORT_FIELDS);
    expect(client.STATUS_FILTERS).toEqual(contract.STATUS_FILTERS);
  });
});
