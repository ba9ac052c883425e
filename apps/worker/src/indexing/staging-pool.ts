import { Worker } from 'node:worker_threads';
import type { FeedItem, SourceConfig } from '@domain-index/indexer';
import type { StagedPiece } from './stage-jsonl-piece';
import type { StagedRecords } from './stage-records-piece';

/** Staging workers: JSONL pieces or runs of records in, staged pieces out, in the order they were sent. */
export interface StagingPool {
  readonly size: number;
  /** Stages a piece whose first line is the feed's line `firstLine` (see stageJsonlPiece). */
  stage(piece: Uint8Array, firstLine: number): Promise<StagedPiece>;
  /** Stages a run of feed items (see stageRecordsPiece). */
  stageRecords(items: FeedItem[]): Promise<StagedRecords>;
  close(): Promise<void>;
}

/** The worker's entry: a JavaScript file that registers tsx, as bin/domain-index.js does. */
const WORKER_ENTRY = new URL('../../bin/staging-worker.js', import.meta.url);

interface Pending {
  resolve: (piece: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * Starts `size` worker threads that stage pieces of one source's JSONL feed, or runs of its
 * records (a profile's, mapped in this thread). Pieces are dealt
 * round robin; a worker answers its pieces in order. If a worker fails, every piece it still
 * holds and every later piece is refused with the failure, and the batch fails as a whole.
 */
export function startStagingPool(source: SourceConfig, size: number): StagingPool {
  const queues: Pending[][] = [];
  let failure: Error | undefined;
  let closing = false;
  const fail = (error: Error) => {
    failure ??= error;
    for (const queue of queues) for (const pending of queue.splice(0)) pending.reject(failure);
  };
  const workers = Array.from({ length: size }, (_, index) => {
    const worker = new Worker(WORKER_ENTRY, { workerData: { source } });
    queues.push([]);
    worker.on('message', (piece: unknown) => queues[index]!.shift()?.resolve(piece));
    worker.on('error', (error) => fail(new Error('a staging worker failed', { cause: error })));
    worker.on('exit', (code) => {
      if (!closing) fail(new Error(`a staging worker stopped unexpectedly (exit code ${code})`));
    });
    return worker;
  });
  let next = 0;
  const send = <T>(message: unknown, transfer: ArrayBuffer[]): Promise<T> => {
    if (failure !== undefined) return Promise.reject(failure);
    const index = next;
    next = (next + 1) % size;
    return new Promise<T>((resolve, reject) => {
      queues[index]!.push({ resolve: resolve as (piece: unknown) => void, reject });
      workers[index]!.postMessage(message, transfer);
    });
  };
  return {
    size,
    stage: (piece, firstLine) => send<StagedPiece>({ piece, firstLine }, [piece.buffer as ArrayBuffer]),
    stageRecords: (items) => send<StagedRecords>({ items }, []),
    async close() {
      closing = true;
      fail(new Error('the staging pool was closed'));
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
