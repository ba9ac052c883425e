/**
 * Everything `index_score` is computed from. `word_count` and `extensions_taken` are deliberately
 * absent: the spec gives them zero weight. `null` means unknown and earns no points.
 */
export interface ScoreInputs {
  /** Characters of the brand part. */
  length: number;
  hasHyphens: boolean;
  hasNumbers: boolean;
  /** Full public suffix in ASCII, e.g. `com`, `co.uk`. */
  tld: string;
  /** Years. */
  domainAge: number | null;
  bidCount: number | null;
  /** US dollars; a real bid only when bidCount >= 1, otherwise an asking price. */
  currentBid: number | null;
  /** 0-100. */
  seoaDr: number | null;
  seoaBacklinks: number | null;
  /** 0-100. */
  seobTf: number | null;
  /** 0-100. */
  seobCf: number | null;
  seobBacklinks: number | null;
  /** Assumed 0-100 like the other provider ratings. */
  seocAuthority: number | null;
  seocBacklinks: number | null;
  /** Monthly searches. */
  keywordSearchVolume: number | null;
  /** Open PageRank style, 0-10. */
  openRank: number | null;
  /** Position in a traffic-ranking list; 1 is the best. */
  rankingaRanking: number | null;
  rankingbRanking: number | null;
}

/**
 * Maximum points of each component. The structural and marketplace components sum to 70, so a
 * row without any authority data tops out at 70; the last 30 points need authority data.
 */
export const SCORE_WEIGHTS = {
  /** Shorter names are scarcer and more contested. */
  length: 22,
  /** No hyphen and no digit: names that are easy to say and type. */
  cleanCharacters: 8,
  /** How liquid the suffix's aftermarket is: com, then net/org/io/ai/co and strong ccTLDs. */
  suffix: 12,
  /** Older names carry history; saturates at AGE_SATURATION_YEARS. */
  age: 8,
  /** Bidders competing now is the most direct demand signal. */
  bidCount: 12,
  /** The price bidders have reached (only when there is at least one bid). */
  currentBid: 8,
  /** Best of the provider ratings: DR, TF, CF (half weight), third authority, open rank. */
  authorityRating: 12,
  /** Largest backlink count of the three providers, log-scaled. */
  backlinks: 6,
  /** Best position in the two traffic-ranking lists, log-scaled. */
  trafficRank: 7,
  /** Monthly search volume of the matching keyword, log-scaled. */
  searchVolume: 5,
} as const;

/** Length at or below which the length component is full. */
const LENGTH_FULL_AT = 3;
/** Length at or above which the length component is zero. */
const LENGTH_ZERO_AT = 20;
/** >1 makes the decline convex: 4 vs 6 letters matters more than 14 vs 16. */
const LENGTH_CURVE = 1.5;

/** Points lost from cleanCharacters; both together lose them all. */
const HYPHEN_COST = 5;
const DIGIT_COST = 3;

/** Tier 1 gets all of SCORE_WEIGHTS.suffix, the others the shares below. */
const SUFFIX_TIER_1: ReadonlySet<string> = new Set(['com']);
/** The next most liquid: the big generic suffixes, ccTLDs used generically, strong ccTLDs. */
// prettier-ignore
const SUFFIX_TIER_2: ReadonlySet<string> = new Set([
  'net', 'org', 'io', 'ai', 'co', 'de', 'uk', 'ca', 'au', 'nl', 'ch', 'fr', 'eu', 'us',
]);
const SUFFIX_SHARE_TIER_2 = 8 / 12;
/** Multi-label suffixes (co.uk, com.au) sit between the strong single-label ones and the rest. */
const SUFFIX_SHARE_MULTI_LABEL = 5 / 12;
const SUFFIX_SHARE_OTHER = 2 / 12;

/** Values at which a log-scaled component reaches its maximum. */
const AGE_SATURATION_YEARS = 25;
const BID_COUNT_SATURATION = 50;
const CURRENT_BID_SATURATION_USD = 10_000;
const BACKLINKS_SATURATION = 100_000;
const SEARCH_VOLUME_SATURATION = 100_000;
/** Traffic rank 1 earns everything, this rank and worse earn nothing. */
const TRAFFIC_RANK_ZERO_AT = 1_000_000;

/** Citation flow counts half: without trust flow it often reflects bulk links. */
const CF_WEIGHT = 0.5;
const RATING_SCALE = 100;
const OPEN_RANK_SCALE = 10;

/** Clamps to [0, 1]; NaN becomes 0. */
function unit(x: number): number {
  return x > 0 ? (x < 1 ? x : 1) : 0;
}

/** Share in [0, 1] of a count on a log scale, 1 from `saturation` on; unknown or negative is 0. */
function logShare(value: number | null, saturation: number): number {
  if (value === null || !(value > 0)) return 0;
  return unit(Math.log1p(value) / Math.log1p(saturation));
}

function rating(value: number | null, scale: number): number {
  return value === null ? 0 : unit(value / scale);
}

function maxKnown(...values: (number | null)[]): number | null {
  let best: number | null = null;
  // `>` against -Infinity also skips NaN.
  for (const v of values) if (v !== null && v > (best ?? -Infinity)) best = v;
  return best;
}

function lengthPoints(length: number): number {
  const share = unit((LENGTH_ZERO_AT - length) / (LENGTH_ZERO_AT - LENGTH_FULL_AT));
  return SCORE_WEIGHTS.length * share ** LENGTH_CURVE;
}

function cleanCharacterPoints(hasHyphens: boolean, hasNumbers: boolean): number {
  const lost = (hasHyphens ? HYPHEN_COST : 0) + (hasNumbers ? DIGIT_COST : 0);
  return Math.max(0, SCORE_WEIGHTS.cleanCharacters - lost);
}

function suffixPoints(tld: string): number {
  const suffix = tld.toLowerCase();
  const share = SUFFIX_TIER_1.has(suffix)
    ? 1
    : SUFFIX_TIER_2.has(suffix)
      ? SUFFIX_SHARE_TIER_2
      : suffix.includes('.')
        ? SUFFIX_SHARE_MULTI_LABEL
        : SUFFIX_SHARE_OTHER;
  return SCORE_WEIGHTS.suffix * share;
}

function marketplacePoints(bidCount: number | null, currentBid: number | null): number {
  const bids = logShare(bidCount, BID_COUNT_SATURATION);
  // With no bid the price is the seller's asking price, which says nothing about demand.
  const hasBids = bidCount !== null && bidCount >= 1;
  const price = hasBids ? logShare(currentBid, CURRENT_BID_SATURATION_USD) : 0;
  return SCORE_WEIGHTS.bidCount * bids + SCORE_WEIGHTS.currentBid * price;
}

function trafficRankShare(...ranks: (number | null)[]): number {
  let best = Infinity;
  // Ranks start at 1; anything below is not a rank and counts as unknown.
  for (const r of ranks) if (r !== null && r >= 1 && r < best) best = r;
  if (best === Infinity) return 0;
  return unit(1 - Math.log10(best) / Math.log10(TRAFFIC_RANK_ZERO_AT));
}

function authorityPoints(i: ListingScoreInputs): number {
  const bestRating = Math.max(
    rating(i.seoaDr, RATING_SCALE),
    rating(i.seobTf, RATING_SCALE),
    CF_WEIGHT * rating(i.seobCf, RATING_SCALE),
    rating(i.seocAuthority, RATING_SCALE),
    rating(i.openRank, OPEN_RANK_SCALE),
  );
  const backlinks = maxKnown(i.seoaBacklinks, i.seobBacklinks, i.seocBacklinks);
  return (
    SCORE_WEIGHTS.authorityRating * bestRating +
    SCORE_WEIGHTS.backlinks * logShare(backlinks, BACKLINKS_SATURATION) +
    SCORE_WEIGHTS.trafficRank * trafficRankShare(i.rankingaRanking, i.rankingbRanking) +
    SCORE_WEIGHTS.searchVolume * logShare(i.keywordSearchVolume, SEARCH_VOLUME_SATURATION)
  );
}

/**
 * `index_score`: an integer 0-100 expressing demand and liquidity, i.e. how contested a name is
 * and how likely it is to find a buyer. Not a price or an appraisal.
 *
 * The sum of the SCORE_WEIGHTS components, each scaled to [0, 1] of its maximum: length,
 * clean characters, suffix tier, age, bid count, current bid (structural and marketplace, 70
 * points in all) and the authority components (30 points). Every component is monotone in its
 * input, so the score is too. Without any authority metric the score is at most 70.
 */
export function indexScore(i: ScoreInputs): number {
  return indexScoreOf(i, i);
}

/** The inputs that come from the name itself (a normalised name carries them). */
export type NameScoreInputs = Pick<ScoreInputs, 'length' | 'hasHyphens' | 'hasNumbers' | 'tld'>;
/** The inputs that come from the listing: age, marketplace activity, authority (a feed row carries them). */
export type ListingScoreInputs = Omit<ScoreInputs, keyof NameScoreInputs>;

/**
 * `indexScore` with its inputs in the two objects the indexer already holds, so that a feed
 * row and its normalised name are read as they are: merging them into one object cost more
 * than the score itself (21 us against 5 us per row).
 */
export function indexScoreOf(name: NameScoreInputs, listing: ListingScoreInputs): number {
  const total =
    lengthPoints(name.length) +
    cleanCharacterPoints(name.hasHyphens, name.hasNumbers) +
    suffixPoints(name.tld) +
    SCORE_WEIGHTS.age * logShare(listing.domainAge, AGE_SATURATION_YEARS) +
    marketplacePoints(listing.bidCount, listing.currentBid) +
    authorityPoints(listing);
  return Math.round(Math.min(100, Math.max(0, total)));
}
