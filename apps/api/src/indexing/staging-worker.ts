// A staging worker thread (see staging-pool.ts): stages each JSONL piece it is sent.
import { parentPort, workerData } from 'node:worker_threads';
import type { SourceConfig } from '@domain-index/indexer';
import { stageJsonlPiece } from './stage-jsonl-piece';

const { source } = workerData as { source: SourceConfig };

parentPort!.on('message', ({ piece, firstLine }: { piece: Uint8Array; firstLine: number }) => {
  parentPort!.postMessage(stageJsonlPiece(piece, firstLine, source));
});
