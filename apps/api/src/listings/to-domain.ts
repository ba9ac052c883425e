import type { Domain } from '@domain-index/contract';
import type { ListingRow } from '@domain-index/db';

/** A listing row with the time its source's batch was applied (see last-checked-at.ts). */
export type CheckedListingRow = ListingRow & { lastCheckedAt: Date };

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

/** The public domain object of a listing row: the 35 fields, internal columns left out. */
export function toDomain(row: CheckedListingRow): Domain {
  return {
    domain_name: row.domainName,
    tld: row.tld,
    status: row.status,
    source: row.source,
    length: row.length,
    has_hyphens: row.hasHyphens,
    has_numbers: row.hasNumbers,
    word_count: row.wordCount,
    index_score: row.indexScore,
    current_bid: row.currentBid,
    start_price: row.startPrice,
    buy_now_price: row.buyNowPrice,
    bid_count: row.bidCount,
    auction_end_time: iso(row.auctionEndTime),
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
    last_checked_at: row.lastCheckedAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
