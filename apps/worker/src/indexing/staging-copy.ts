import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { copyFromStdin, type Database } from '@domain-index/db';
import { COPY_COLUMN_LIST as columnList } from './copy-rows';

/** Staged rows on their way into a staging table through COPY, in COPY's text format. */
export interface StagingCopy {
  /**
   * Sends rows (copyRow lines). Waits until the previous rows are handed to the connection, so
   * one chunk is in flight while the next is prepared and memory stays flat; a failure of
   * earlier rows is thrown here.
   */
  add(rows: string, rowsReadSoFar: number): Promise<void>;
  /** Ends the COPY and waits until the database has stored every row, or throws its failure. */
  finish(): Promise<void>;
  /**
   * After a failure elsewhere: stops the COPY and waits until the connection is free again, so
   * the caller can drop the staging table. (On PostgreSQL the COPY then stores nothing; PGlite's
   * chunks are stored as they go, and go with the table.)
   */
  abort(): Promise<void>;
}

/**
 * Starts COPY into a staging table: on PostgreSQL one COPY FROM STDIN for the whole batch, on
 * PGlite (which takes COPY input only as a blob) one COPY per chunk. `onProgress` hears the
 * rows read so far as each chunk is sent.
 */
export function startStagingCopy(database: Database, table: string, onProgress?: (rowsRead: number) => void): StagingCopy {
  const { driver } = database;
  if (driver.kind === 'postgres') {
    const { client } = driver;
    // on a connection of its own (copyFromStdin): a query pipelined into a COPY breaks the connection
    return streamingCopy(() => copyFromStdin(client, `copy "${table}" (${columnList}) from stdin`), onProgress);
  }
  const { client } = driver;
  return blobCopies((rows) => client.query(`copy "${table}" (${columnList}) from '/dev/blob'`, [], { blob: new Blob([rows]) }), onProgress);
}

function streamingCopy(open: () => Promise<Writable>, onProgress?: (rowsRead: number) => void): StagingCopy {
  let opening: Promise<{ stream: Writable; stored: Promise<void> }> | undefined;
  const opened = () =>
    (opening ??= open().then((stream) => {
      // Settles when PostgreSQL has stored the rows (finish) or refused them (error); a refusal
      // can come at any time, so it is observed from the start and rethrown where awaited.
      const stored = finished(stream);
      stored.catch(() => undefined);
      return { stream, stored };
    }));
  let sent: Promise<unknown> = Promise.resolve();
  return {
    async add(rows, rowsReadSoFar) {
      const { stream, stored } = await opened();
      await sent;
      if (stream.destroyed) await stored;
      const flushed = stream.write(rows, () => onProgress?.(rowsReadSoFar));
      // A failure ends the stream without a 'drain': whichever comes first.
      sent = flushed ? Promise.resolve() : Promise.race([once(stream, 'drain'), stored]);
      // awaited by the next add() or finish(); an abort() meanwhile destroys the stream, which
      // rejects the wait for 'drain' with nobody awaiting it: an unhandled rejection that ended
      // the process. The failure itself is observed through `stored`.
      sent.catch(() => undefined);
    },
    async finish() {
      if (opening === undefined) return;
      const { stream, stored } = await opening;
      await sent;
      stream.end();
      await stored;
    },
    async abort() {
      if (opening === undefined) return;
      const copy = await opening.catch(() => undefined);
      if (copy === undefined) return;
      // postgres.js answers a destroyed COPY stream with CopyFail: the COPY stores nothing.
      if (!copy.stream.destroyed && !copy.stream.writableFinished) copy.stream.destroy(new Error('the import failed'));
      await copy.stored.catch(() => undefined);
    },
  };
}

function blobCopies(copy: (rows: string) => Promise<unknown>, onProgress?: (rowsRead: number) => void): StagingCopy {
  let copying: Promise<void> = Promise.resolve();
  return {
    async add(rows, rowsReadSoFar) {
      await copying;
      copying = copy(rows).then(() => onProgress?.(rowsReadSoFar));
      copying.catch(() => undefined);
    },
    finish: () => copying,
    abort: () => copying.catch(() => undefined),
  };
}
