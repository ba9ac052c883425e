/** The API version, carried in the path prefix and in `meta.api_version`. */
export const API_VERSION = 'v1' as const;

/** Path prefix of every endpoint. */
export const PATH_PREFIX = '/api/v1' as const;

/** The caveat every successful response repeats in `meta.index_score`. */
export const INDEX_SCORE_CAVEAT =
  'index_score (0-100) indicates demand and liquidity: how contested a name is and how likely it is to find a buyer. ' +
  'It is not a price, an appraisal or a valuation and must not be used as one. word_count and extensions_taken do not contribute to it. ' +
  'The top of the scale depends on available authority data, so thresholds near 100 can legitimately return nothing.';

/** The fixed sentence of `meta.counts` in the stats envelope. */
export const COUNTS_NOTE =
  'Counts are taken concurrently on a continuously rewritten table; the sums of by_status and by_source normally equal total but may differ from it, for example during a batch switch.';
