import { sql, type Database } from '@domain-index/db';

/**
 * Vacuums listings (a visibility map, so that searches answer from indexes alone) and gives
 * the planner fresh statistics, one ANALYZE per statistics target.
 *
 * Why not one `vacuum (analyze)`: ANALYZE samples 300 rows per unit of the largest target among
 * the columns it analyses, and computes every column from that sample. domain_name's target of
 * 1000 (migration 0006) made a single pass sample 300,000 rows for all 36 columns: 5.1 s at
 * 1,000,000 rows, against 0.6 s for domain_name alone and 0.2 s for thirteen columns at the
 * default target. Each column gets exactly the statistics its target asks for.
 *
 * A statistics object over several columns (migration 0024: status with current_bid, a list of
 * 1000 pairs) is built only by an ANALYZE that names all its columns, and raises that ANALYZE's
 * sample to 300 rows per unit of its own target; both columns keep the default target, so the
 * object is built in the default group, which now samples 300,000 rows: that ANALYZE took
 * 0.56 s at 5M listings and takes 5.1 s, the whole refresh 2.0 -> 7.2 s, for planned totals of
 * price ranges within 1 % instead of 40 % over (bench/notes/100). It runs only after a batch
 * that changed more than VACUUM_AFTER_ROWS rows.
 * Splitting its columns across two groups would leave it unbuilt.
 *
 * The names' histogram of 10,000 entries (migration 0026, for the planned total of a term) is
 * an object over domain_name and an expression of it, built with domain_name's group, whose
 * sample it raises to 3,000,000 rows, the whole table below that size: the refresh took 18.8 s
 * instead of 5.9 at 5M listings and 23.7 instead of 7.1 at 20M, and that ANALYZE holds the
 * sampled rows (about 240 bytes each) in the database server's memory while it runs: the
 * refreshing backend's private memory peaked at 1.2 GB at 30M (bench/notes/103, 104). An object over expressions alone (0022, 0025) is built by every group.
 *
 * The names' trigrams (migration 0028, for the planned total of a three-character term) are an
 * object over has_hyphens and an expression, at a target that gives has_hyphens a group of its
 * own: one more ANALYZE, sampling 1,000,200 rows, one after the others, so the refresh's peak
 * memory stays domain_name's group's (bench/notes/107).
 *
 * No ANALYZE that names columns builds an index's statistics: the bigram index's list of
 * bigrams (0027: every one of them, for the planned total of a two-character term) comes from
 * PostgreSQL's autovacuum, which analyses the whole table once a tenth of it changed; these
 * ANALYZEs do not reset its count. Analysing the whole table here would take 107 s at 30M
 * listings instead of 30 (bench/notes/103, 104).
 */
export async function refreshStatistics(database: Database): Promise<void> {
  await database.db.execute(sql`vacuum listings`);
  // A target of 0 turns a column's statistics off; PostgreSQL 17 (PGlite) writes the default as null.
  const groups = await database.rows<{ columns: string }>(sql`
    select string_agg(quote_ident(attname), ', ' order by attnum) as columns
    from pg_attribute
    where attrelid = 'listings'::regclass and attnum > 0 and not attisdropped
      and coalesce(attstattarget, -1) <> 0
    group by coalesce(attstattarget, -1)`);
  for (const { columns } of groups) await database.db.execute(sql.raw(`analyze listings (${columns})`));
}
