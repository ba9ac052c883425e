import { sql, type Database } from '@domain-index/db';

type Executor = Pick<Database['db'], 'execute'>;

/** Arbitrary but fixed: the one lock every writer of the change feed takes. */
const EVENT_LOG_LOCK = 727_274_002;

/**
 * Takes the event log's lock until the transaction ends. Every transaction that appends events
 * takes it right before it takes their ids (listing_events_id_seq) and holds it to its COMMIT,
 * so ids are handed out in commit order: a reader that has seen event N has seen every event
 * below N that will ever exist, and a cursor never skips an event committed later. Writers wait
 * for each other only for the time of their appends and COMMIT, not for their whole switch.
 */
export async function lockEventLog(tx: Executor): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${EVENT_LOG_LOCK})`);
}
