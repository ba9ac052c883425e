import type postgres from 'postgres';
import { SentCancels } from './cancel-delivery';
import type { Database, RenderedStatement } from './database';

/** What runs inside one snapshot: counts and a cursor over the same committed state. */
export interface Snapshot {
  /**
   * Runs a statement whose first column of the first row is a number (a count). An abort
   * cancels it (PostgreSQL) and it rejects with the abort's reason: an aborted count is never
   * returned.
   */
  count(statement: RenderedStatement): Promise<number>;
  /**
   * The rows of a statement in pages of at most `pageSize`, as arrays in select order, fetched
   * from a cursor: PostgreSQL fetches the next page while the loop works on one, and no further,
   * so a consumer that waits (a slow socket) holds two pages, and the database holds the rest.
   */
  pages(statement: RenderedStatement, pageSize: number): AsyncIterable<unknown[][]>;
}

/** Options of {@link inSnapshot}. */
export interface SnapshotOptions {
  /** The statements' own timeout inside the transaction (SET LOCAL statement_timeout); PostgreSQL only. */
  statementTimeoutMs: number;
  /** Aborting it cancels the statement running (PostgreSQL) and ends the transaction. */
  signal: AbortSignal;
}

/** SQLSTATE PostgreSQL answers a cancelled statement with. */
const QUERY_CANCELED = '57014';

/** The reason an aborted snapshot gives: the signal's, else a cancellation. */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('the read was cancelled'), { code: QUERY_CANCELED });
}

/**
 * Runs `work` in one `REPEATABLE READ READ ONLY` transaction: every statement it sends sees the
 * same snapshot, so a count taken first and the rows streamed after agree even while the table
 * is rewritten. The transaction ends (rolled back: it wrote nothing) when `work` settles, or at
 * once when `signal` aborts.
 *
 * PostgreSQL: a postgres.js cursor (an unnamed portal fetched `pageSize` rows at a time, the
 * connection held for the whole read). PGlite has no cursor API: DECLARE and FETCH in a
 * transaction do the same; PGlite runs one statement at a time, so the embedded database waits
 * for the transaction, as every query of it waits for the one before.
 */
export async function inSnapshot<T>(database: Database, options: SnapshotOptions, work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
  if (options.signal.aborted) throw abortReason(options.signal);
  // on the database itself, never a request's deadline view: the cursor bounds itself (below)
  const { driver } = database.root;
  if (driver.kind === 'postgres') return inPostgresSnapshot(driver.client, options, work);
  return inPgliteSnapshot(driver.client, options, work);
}

async function inPostgresSnapshot<T>(client: postgres.Sql, options: SnapshotOptions, work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
  const result = await client.begin('isolation level repeatable read read only', async (tx) => {
    // SET LOCAL: per transaction, safe through a transaction-mode pooler
    await tx.unsafe(`set local statement_timeout = ${Math.max(1, Math.round(options.statementTimeoutMs))}`);
    const snapshot: Snapshot = {
      count: (statement) => postgresCount(tx, statement, options.signal),
      pages: (statement, pageSize) => postgresPages(tx, statement, pageSize, options.signal),
    };
    return [await work(snapshot)] as const;
  });
  return result[0];
}

/** A postgres.js query as its canceller is reached: `cancel()` would drop the CancelRequest's promise. */
type CancellableQuery = { canceller: ((query: unknown) => Promise<unknown>) | null; state: unknown };

/**
 * Sends the CancelRequest of `query` once (the driver clears the canceller), keeping its
 * delivery for the caller to wait for: `cancel()` drops the promise, which rejects unhandled when
 * the server cannot be reached.
 */
function sendCancel(query: unknown, cancels: SentCancels): void {
  const driverQuery = query as CancellableQuery;
  const { canceller } = driverQuery;
  // Not yet handed to the connection (no backend state): the driver's canceller would take it
  // off the pool's queue, not the transaction's, and the transaction would wait for it for
  // good. An abort is a macrotask and a statement is handed on within a microtask of being
  // made, so this is not expected; if it happens, the statement runs and its result is dropped.
  if (canceller === null || driverQuery.state === null) return;
  driverQuery.canceller = null;
  cancels.add(canceller(query));
}

/**
 * A count that an abort cancels on the server: an export's count over millions of rows runs
 * for seconds, and one whose client left must neither run on to the end nor be charged (the
 * caller charges only what this returns). It returns only when the signal had not aborted, and
 * only once any cancel it sent has been delivered, so the cancel cannot land on the statement
 * after it (cancel-delivery.ts).
 */
async function postgresCount(tx: postgres.TransactionSql, statement: RenderedStatement, signal: AbortSignal): Promise<number> {
  if (signal.aborted) throw abortReason(signal);
  const query = tx.unsafe(statement.sql, statement.params as postgres.ParameterOrJSON<never>[]).values();
  const cancels = new SentCancels();
  const cancel = () => sendCancel(query, cancels);
  signal.addEventListener('abort', cancel, { once: true });
  try {
    const [row] = await query.catch((error: unknown) => {
      throw signal.aborted ? abortReason(signal) : error;
    });
    if (signal.aborted) throw abortReason(signal);
    return Number(row?.[0] ?? 0);
  } finally {
    signal.removeEventListener('abort', cancel);
    await cancels.delivered();
  }
}

/**
 * The pages of a postgres.js cursor. Run on a database without a deadline (not a request's
 * view): the driver's cursor replaces the promise callbacks a deadline wraps
 * (bounded-client.ts), so the export bounds itself (its statement timeout, and the caller's
 * abort on its own timer).
 *
 * An abort cancels a fetch only while one is running on the server, and the portal is closed
 * and the transaction ended only once that cancel has been delivered (cancel-delivery.ts). A
 * cancel sent while the backend was idle between pages, the common case of a client that went
 * away, landed on the Close or the ROLLBACK after it, or on the next caller's statement.
 */
async function* postgresPages(tx: postgres.TransactionSql, statement: RenderedStatement, pageSize: number, signal: AbortSignal): AsyncGenerator<unknown[][]> {
  // aborted before the cursor opens (during the count or the charge): no sort to start
  if (signal.aborted) throw abortReason(signal);
  const query = tx.unsafe(statement.sql, statement.params as postgres.ParameterOrJSON<never>[]).values();
  // a fetch in flight (a sort of millions of rows before the first) is cancelled on the server
  let fetching = false;
  const cancels = new SentCancels();
  const cancel = () => {
    // nothing running on the server: the loop stops at its next step, with nothing to interrupt
    if (fetching) sendCancel(query, cancels);
  };
  signal.addEventListener('abort', cancel, { once: true });
  const pages = query.cursor(pageSize)[Symbol.asyncIterator]();
  const fetchPage = (): Promise<IteratorResult<unknown[][]>> => {
    fetching = true;
    const fetched = Promise.resolve(pages.next());
    const settled = () => {
      fetching = false;
    };
    fetched.then(settled, settled);
    return fetched;
  };
  let next = fetchPage();
  let finished = false;
  try {
    for (;;) {
      // a fetch the abort cancelled fails with the abort's reason, not the driver's cancellation
      const page = await next.catch((error: unknown) => {
        throw signal.aborted ? abortReason(signal) : error;
      });
      if (page.done === true) {
        finished = true;
        if (signal.aborted) throw abortReason(signal);
        return;
      }
      if (signal.aborted) throw abortReason(signal);
      // The next page is asked for before this one is handed on: PostgreSQL produces it while
      // the caller renders and writes this one, instead of each waiting for the other (one
      // page more in memory, two in all).
      next = fetchPage();
      yield page.value;
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    // once the page asked for has come (at once when aborted: the cancel above ends it)
    const last = await next.catch(() => undefined);
    await cancels.delivered();
    if (!finished && last !== undefined && last.done !== true) {
      // Left before the last page (aborted, or the caller stopped): the portal is closed, so
      // the driver does not wait to be asked for more on a connection the transaction still
      // needs for its rollback. A failure of that page is nobody's to report.
      await pages.return?.();
    }
  }
}

type PgliteClient = Extract<Database['driver'], { kind: 'pglite' }>['client'];

async function inPgliteSnapshot<T>(client: PgliteClient, options: SnapshotOptions, work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
  return client.transaction(async (tx) => {
    await tx.exec('set transaction isolation level repeatable read, read only');
    let cursors = 0;
    const snapshot: Snapshot = {
      count: async (statement) => {
        // PGlite cannot interrupt a statement; a count whose caller left is at least not returned
        if (options.signal.aborted) throw abortReason(options.signal);
        const { rows } = await tx.query<unknown[]>(statement.sql, statement.params, { rowMode: 'array' });
        if (options.signal.aborted) throw abortReason(options.signal);
        return Number(rows[0]?.[0] ?? 0);
      },
      pages: async function* (statement, pageSize) {
        cursors += 1;
        const name = `di_snapshot_${cursors}`;
        await tx.query(`declare ${name} no scroll cursor for ${statement.sql}`, statement.params);
        try {
          for (;;) {
            if (options.signal.aborted) throw abortReason(options.signal);
            const { rows } = await tx.query<unknown[]>(`fetch forward ${Math.max(1, Math.floor(pageSize))} from ${name}`, [], { rowMode: 'array' });
            if (rows.length === 0) return;
            yield rows;
          }
        } finally {
          await tx.exec(`close ${name}`).catch(() => undefined);
        }
      },
    };
    try {
      return await work(snapshot);
    } finally {
      // read only: nothing to keep, and a rollback is what an abandoned read should end in
      await tx.rollback().catch(() => undefined);
    }
  });
}
