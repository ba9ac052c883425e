/** A WAL position as PostgreSQL writes it (`16/B374D848`), as a number that compares. */
export function parseLsn(text: string): bigint {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (match === null) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`);
}

/** Size of a WAL page's short header, and of the long one that opens each segment (64-bit builds). */
const SHORT_PAGE_HEADER = 24n;
const LONG_PAGE_HEADER = 40n;

/**
 * Where the WAL's last record ended, from the insert position `pg_current_wal_insert_lsn()`
 * reports. When a record ends exactly at a page boundary, the insert position is already past
 * the next page's header, while a replica that replayed everything reports the boundary: left
 * as it is, an idle primary would make every replica look behind until the next write.
 */
export function lastRecordEnd(insertLsn: bigint, pageSize: bigint, segmentSize: bigint): bigint {
  if (insertLsn % segmentSize === LONG_PAGE_HEADER) return insertLsn - LONG_PAGE_HEADER;
  if (insertLsn % pageSize === SHORT_PAGE_HEADER) return insertLsn - SHORT_PAGE_HEADER;
  return insertLsn;
}

/**
 * The primary's WAL position, sampled over time, to tell how stale a replica can be.
 *
 * A replica that has replayed up to position R holds every change the primary had written when
 * it was last seen at or below R. So its staleness at time `now` is at most `now - t`, where t
 * is the latest sample at or below R. When the primary writes nothing, its position stays at R
 * and the latest sample qualifies: an idle primary never makes a replica look behind, which
 * `now() - pg_last_xact_replay_timestamp()` would (it grows while nothing is written). The
 * figure is an upper bound whatever the spacing of the samples, so a late check can only make
 * a replica look staler than it is, never fresher.
 */
export class WalHistory {
  private samples: { at: number; lsn: bigint }[] = [];

  /** @param keepMs how far back samples are kept: past it, a replica is stale anyway. */
  constructor(private readonly keepMs: number) {}

  /** The primary was at `lsn` at time `at` (ms). Positions only grow. */
  record(at: number, lsn: bigint): void {
    this.samples.push({ at, lsn });
    const horizon = at - this.keepMs;
    // keep the newest sample older than the horizon: it may be the one a lagging replica reached
    while (this.samples.length > 1 && this.samples[1]!.at < horizon) this.samples.shift();
  }

  /**
   * How stale a node that has replayed up to `replayed` can be at `now`, in ms; undefined when
   * it is behind every kept sample (staler than `keepMs`) or nothing was sampled yet.
   */
  stalenessOf(replayed: bigint, now: number): number | undefined {
    for (let i = this.samples.length - 1; i >= 0; i -= 1) {
      const sample = this.samples[i]!;
      if (sample.lsn <= replayed) return Math.max(0, now - sample.at);
    }
    return undefined;
  }
}
