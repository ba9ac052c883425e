import { Writable } from 'node:stream';
import type { Response } from 'express';
import { createLogger } from '@domain-index/runtime/logger';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ApiMetrics } from '../src/ops/api-metrics';
import { ExportBody, ExportStopped } from '../src/exports/export-body';

/** An export's body with its log lines captured, as a request whose client is `signal`. */
function body(signal: AbortSignal) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  const res = {
    locals: { requestId: 'req_test' },
    destroy: () => undefined,
  } as unknown as Response;
  const exportBody = new ExportBody('jsonl', false, res, signal, {
    metrics: new ApiMetrics(new Registry()),
    logger: createLogger('info', sink),
  });
  return { exportBody, lines };
}

// PostgreSQL's answer to a statement cancelled under it, as the driver reports it
const cancelled = Object.assign(new Error('canceling statement due to user request'), {
  code: '57014',
});

describe('an export that stops part-way', () => {
  it('is not logged as a failure when its client went away, even when the driver reports the cancel', async () => {
    const abort = new AbortController();
    abort.abort(new ExportStopped('client_gone'));
    const { exportBody, lines } = body(abort.signal);
    exportBody.fail(cancelled);
    await new Promise((resolve) => setImmediate(resolve));
    expect(exportBody.destroyed).toBe(true);
    expect(lines).toEqual([]);
  });

  it('is logged as a timeout, with an error line in the body, when its own time ran out', async () => {
    const abort = new AbortController();
    abort.abort(new ExportStopped('timeout'));
    const { exportBody, lines } = body(abort.signal);
    const text: string[] = [];
    exportBody.on('data', (chunk: Buffer) => text.push(chunk.toString('utf8')));
    exportBody.fail(cancelled);
    await new Promise((resolve) => exportBody.once('end', resolve));
    expect(JSON.parse(text.join(''))).toEqual({
      error: {
        code: 'query_failed',
        message:
          'the export ran past its time limit after 0 rows and is incomplete; narrow the filters',
      },
    });
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toMatchObject([
      { msg: 'an export stopped part-way', failure: 'timeout', rows: 0 },
    ]);
  });
});
