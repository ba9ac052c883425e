import { listings, sourceBatches, type Database } from '@domain-index/db';
import { createTestDatabase, testEngines, type TestDatabase } from '@domain-index/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOMAIN_JSON_LINE } from './domain-json';
import { DOMAIN_COLUMNS, domainFromValues } from './domain-values';

/** A listing's columns as a feed leaves them, with `overrides` on top. */
function listingRow(
  domainName: string,
  overrides: Partial<typeof listings.$inferInsert> = {},
): typeof listings.$inferInsert {
  return {
    domainName,
    tld: 'com',
    status: 'auction',
    source: 'edges',
    length: domainName.length - 4,
    hasHyphens: domainName.includes('-'),
    hasNumbers: /\d/.test(domainName),
    wordCount: 1,
    indexScore: 50,
    auctionEndTime: new Date('2026-12-01T10:00:00.123Z'),
    updatedAt: new Date('2026-11-27T09:30:00Z'),
    brand: domainName.slice(0, -4),
    ...overrides,
  } as typeof listings.$inferInsert;
}

/** Values at the edges of each column type's text form: what JavaScript and PostgreSQL write differently. */
const EDGES: (typeof listings.$inferInsert)[] = [
  listingRow('plain.com', {
    currentBid: 150.5,
    startPrice: 100,
    buyNowPrice: 0.1,
    valuation: 99999999999.99,
    lastSoldPrice: 0,
    seoaDr: 21.3,
    seobTf: 100,
    seobCf: 0,
    spamRisk: 45.6,
    seocAuthority: 33.3,
    openRank: 0.5,
  }),
  // reals whose float4 text has an exponent: JavaScript writes 0.00005 and 0.000001 plainly, 1.5e-7 with one, -0 as 0
  listingRow('tiny-values.com', {
    seoaDr: 0.00005,
    seobTf: 0.000001,
    seobCf: 1.5e-7,
    spamRisk: 1e-10,
    seocAuthority: -0,
    openRank: 12.345678,
  }),
  // the largest counts a feed may give (2^53 - 1), and every nullable field null
  listingRow('big-counts99.com', {
    seoaBacklinks: 9007199254740991,
    seobBacklinks: 1e15,
    seocBacklinks: 123456789012,
    keywordSearchVolume: 2147483647,
    bidCount: 0,
  }),
  listingRow('nulls.com', { auctionEndTime: null as unknown as Date }),
  // strings that need escapes: quotes, backslashes, control characters, non-ASCII, a line separator
  listingRow('escapes.com', {
    auctionType: 'say "hi"\\ \u0001\u001f\b\f\n\r\t',
    marketplaceUrl: 'https://example.com/ü/€/😀/\u2028/</script>?a=1&b=2',
  }),
];

for (const { engine, skip } of testEngines()) {
  describe.skipIf(skip)(`a domain's JSON line written by the database, on ${engine}`, () => {
    let test: TestDatabase;
    let database: Database;
    beforeAll(async () => {
      test = await createTestDatabase(engine);
      database = test.database;
      await database.db
        .insert(sourceBatches)
        .values({ source: 'edges', appliedAt: new Date('2026-11-27T08:00:00.5Z') });
      await database.db.insert(listings).values(EDGES);
    });
    afterAll(async () => {
      await test?.dispose();
    });

    it("is byte for byte JSON.stringify of the object the API makes of the same row's values", async () => {
      const statement = (select: Record<string, unknown>) =>
        database.db
          .select(select as never)
          .from(listings)
          .orderBy(listings.domainName)
          .toSQL();
      const values = await database.values(statement({ domain: DOMAIN_COLUMNS }));
      const lines = await database.values(statement({ line: DOMAIN_JSON_LINE }));
      expect(values).toHaveLength(EDGES.length);
      const expected = values.map((row) => JSON.stringify(domainFromValues(row)));
      expect(lines.map((row) => row[0])).toEqual(expected);
      // the edges are in the rows, not lost on the way in
      const tiny = JSON.parse(expected.find((line) => line.includes('tiny-values'))!) as Record<
        string,
        unknown
      >;
      expect(tiny).toMatchObject({
        seoa_dr: 0.00005,
        seob_tf: 0.000001,
        seob_cf: 1.5e-7,
        seoc_authority: 0,
      });
      expect(expected.find((line) => line.includes('tiny-values'))).toContain('"seob_cf":1.5e-7');
      expect(expected.find((line) => line.includes('big-counts99'))).toContain(
        '"seoa_backlinks":9007199254740991',
      );
      expect(expected.find((line) => line.includes('escapes'))).toContain(
        '\\u0001\\u001f\\b\\f\\n\\r\\t',
      );
    });
  });
}
