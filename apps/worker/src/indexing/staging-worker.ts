// A staging worker thread (see staging-pool.ts): stages each JSONL piece or run of records it is sent.
import { parentPort, workerData } from 'node:worker_threads';
import type { FeedItem, SourceConfig } from '@domain-index/indexer';
import { stageJsonlPiece } from './stage-jsonl-piece';
import { stageRecordsPiece } from './stage-records-piece';

const { source } = workerData as { source: SourceConfig };

parentPort!.on('message', (message: { piece: Uint8Array; firstLine: number } | { items: FeedItem[] }) => {
  parentPort!.postMessage('items' in message ? stageRecordsPiece(message.items, source) : stageJsonlPiece(message.piece, message.firstLine, source));
});
