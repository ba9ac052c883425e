import { contract } from '@domain-index/contract';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '@domain-index/accounts/key-store';
import { findListing } from '@domain-index/api/listings/lookup-query';
import { ApiMetrics } from '@domain-index/api/ops/api-metrics';
import { PrimaryReads } from '@domain-index/api/replicas/read-nodes';
import { Registry } from 'prom-client';
import { keyCheckWithLookup, prefetchedListing, type ResponseLocals } from '@domain-index/api/listings/lookup-with-key';
import { buildFixtureIndex, EVERY_FIELD_RECORD, fixtureClock, FIXTURE_NOW } from './support/fixture-index';

/**
 * The lookup's key check reads the listing in the same statement. The API answers the same
 * whether or not it does (the other suites cover what customers see), so here the statement
 * itself is checked: it must find the key and the very listing the plain lookup finds, and
 * nothing beside a revoked or unknown key.
 */
for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`lookup key check with its listing on ${engine}`, () => {
    let test: TestDatabase;
    let keyCheck: ReturnType<typeof keyCheckWithLookup>;
    beforeAll(async () => {
      test = await createTestDatabase(engine);
      await buildFixtureIndex(test.database);
      keyCheck = keyCheckWithLookup({ reads: new PrimaryReads(test.database, new ApiMetrics(new Registry())), clock: fixtureClock });
    });
    afterAll(async () => {
      await test.dispose();
    });
    const lookupRequest = (domain: string) => ({ tsRestRoute: contract.getDomain, params: { domain } });
    const newResponse = (): ResponseLocals => ({ locals: {} });

    it('returns the key and leaves the listing the plain lookup returns, every field of it', async () => {
      const { id, key } = await createKey(test.database, { planId: 'pro', environment: 'live' });
      for (const name of [EVERY_FIELD_RECORD.domain_name, 'multi.com', 'not-listed-anywhere.com']) {
        const res = newResponse();
        expect(await keyCheck(lookupRequest(name.toUpperCase()), res, key)).toEqual({ id, planId: 'pro', active: true });
        const expected = await findListing(test.database, name, FIXTURE_NOW);
        if (name !== 'not-listed-anywhere.com') expect(expected).toBeDefined();
        expect(prefetchedListing(res, name), name).toEqual({ domainName: name, domain: expected });
        // kept for this name only
        expect(prefetchedListing(res, 'other.com')).toBeUndefined();
      }
    });

    it('reads no listing beside a revoked key, and nothing for an unknown one', async () => {
      const { id, key } = await createKey(test.database, { planId: 'pro', environment: 'live' });
      await revokeKey(test.database, id, 'test', FIXTURE_NOW);
      const revoked = newResponse();
      expect(await keyCheck(lookupRequest('multi.com'), revoked, key)).toEqual({ id, planId: 'pro', active: false });
      expect(prefetchedListing(revoked, 'multi.com')?.domain).toBeUndefined();
      const unknown = newResponse();
      // another last character: an unknown key (a fixed 'x' was the key itself when it ended in x)
      expect(await keyCheck(lookupRequest('multi.com'), unknown, `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`)).toBeUndefined();
      expect(prefetchedListing(unknown, 'multi.com')).toBeUndefined();
    });

    it('leaves other routes and malformed names to the plain key lookup', () => {
      expect(keyCheck({ tsRestRoute: contract.searchDomains, params: {} }, newResponse(), 'dix_live_x')).toBeUndefined();
      expect(keyCheck(lookupRequest('not a domain'), newResponse(), 'dix_live_x')).toBeUndefined();
    });
  });
}
