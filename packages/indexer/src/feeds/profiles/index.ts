import { feedProfileSchema, type FeedProfile, type FeedProfileInput } from '../profile';
import { dynadotAuctions } from './dynadot-auctions';
import { godaddyAuctions } from './godaddy-auctions';
import { namecheapMarket } from './namecheap-market';
import { parkioAuctions } from './parkio-auctions';
import { sedoAuctions } from './sedo-auctions';

/** The profiles shipped with the indexer, by the name a sources file uses (`"profile": "sedo-auctions"`). */
export const SHIPPED_PROFILE_INPUTS: Readonly<Record<string, FeedProfileInput>> = {
  'godaddy-auctions': godaddyAuctions,
  'namecheap-market': namecheapMarket,
  'dynadot-auctions': dynadotAuctions,
  'sedo-auctions': sedoAuctions,
  'parkio-auctions': parkioAuctions,
};

/** The shipped profiles, validated (a mistake in one fails at load, and in its test). */
export const SHIPPED_PROFILES: Readonly<Record<string, FeedProfile>> = Object.fromEntries(
  Object.entries(SHIPPED_PROFILE_INPUTS).map(([name, input]) => [name, feedProfileSchema.parse(input)]),
);

/** The names of the shipped profiles. */
export const SHIPPED_PROFILE_NAMES = Object.keys(SHIPPED_PROFILE_INPUTS);
