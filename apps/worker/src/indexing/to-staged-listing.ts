import { indexScoreOf, normaliseDomainName, wordCount, type FeedRow } from '@domain-index/indexer';
import type { StagedListing } from './listing-columns';

/** A feed row turned into an index row, or the reason it cannot be one. */
export type StagedResult = { ok: true; listing: StagedListing } | { ok: false; reason: string };

/**
 * Computes the derived fields of a validated feed row (normalised name, suffix, length,
 * hyphens, digits, word_count, index_score).
 */
export function toStagedListing(row: FeedRow, source: string): StagedResult {
  const name = normaliseDomainName(row.domainName);
  if (!name.ok) return { ok: false, reason: name.reason };
  const { value } = name;
  const listing: StagedListing = {
    domain_name: value.domainName,
    tld: value.tld,
    status: row.status,
    source,
    length: value.length,
    has_hyphens: value.hasHyphens,
    has_numbers: value.hasNumbers,
    word_count: wordCount(value.brand),
    index_score: indexScoreOf(value, row),
    current_bid: row.currentBid,
    start_price: row.startPrice,
    buy_now_price: row.buyNowPrice,
    bid_count: row.bidCount,
    auction_end_time: row.auctionEndTime === null ? null : row.auctionEndTime.toISOString(),
    auction_type: row.auctionType,
    marketplace_url: row.marketplaceUrl,
    extensions_taken: row.extensionsTaken,
    domain_age: row.domainAge,
    valuation: row.valuation,
    spam_risk: row.spamRisk,
    seoa_dr: row.seoaDr,
    seoa_backlinks: row.seoaBacklinks,
    seob_tf: row.seobTf,
    seob_cf: row.seobCf,
    seob_backlinks: row.seobBacklinks,
    seoc_authority: row.seocAuthority,
    seoc_backlinks: row.seocBacklinks,
    keyword_search_volume: row.keywordSearchVolume,
    open_rank: row.openRank,
    rankinga_ranking: row.rankingaRanking,
    rankingb_ranking: row.rankingbRanking,
    last_sold_price: row.lastSoldPrice,
    last_sold_year: row.lastSoldYear,
  };
  return { ok: true, listing };
}
