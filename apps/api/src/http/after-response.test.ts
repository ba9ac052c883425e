import express from 'express';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@domain-index/runtime/logger';
import { afterResponse, type Finisher } from './after-response';

/** Serves one app on loopback for the body of a test, and returns what the body returns. */
async function serving<T>(app: express.Express, body: (url: string) => Promise<T>): Promise<T> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    return await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('afterResponse', () => {
  it("runs every finisher once the response is finished, in order, with the request's duration", async () => {
    const seen: string[] = [];
    let finished!: () => void;
    const allRan = new Promise<void>((resolve) => (finished = resolve));
    const finishers: Finisher[] = [
      (req, res, durationMs) => {
        seen.push(`metrics ${req.method} ${res.statusCode} ${durationMs >= 20 ? 'slow' : 'fast'}`);
      },
      (_req, res) => {
        seen.push(`usage ${String(res.locals.rows)}`);
        finished();
      },
    ];
    const app = express();
    app.use(afterResponse(finishers, createLogger('silent')));
    app.get('/slow', (_req, res) => {
      res.locals.rows = 3;
      setTimeout(() => res.status(201).end('ok'), 25);
    });
    await serving(app, async (url) => {
      expect((await fetch(`${url}/slow`)).status).toBe(201);
      await allRan;
    });
    expect(seen).toEqual(['metrics GET 201 slow', 'usage 3']);
  });

  it('runs the finishers after one that throws, logs its failure as one JSON line, and the server goes on answering', async () => {
    const lines: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write: (chunk: Buffer, _encoding, done) => {
          lines.push(
            ...chunk
              .toString()
              .split('\n')
              .filter((line) => line !== ''),
          );
          done();
        },
      }),
    );
    const ran: number[] = [];
    let finished!: () => void;
    const allRan = new Promise<void>((resolve) => (finished = resolve));
    const app = express();
    app.use(
      afterResponse(
        [
          () => {
            throw new Error('a defect in a finisher');
          },
          () => {
            ran.push(1);
            if (ran.length === 2) finished();
          },
        ],
        logger,
      ),
    );
    app.get('/', (_req, res) => res.end('ok'));
    await serving(app, async (url) => {
      expect((await fetch(url)).status).toBe(200);
      expect((await fetch(url)).status).toBe(200);
      await allRan;
    });
    expect(ran).toEqual([1, 1]);
    // one JSON error line naming what failed; the logger counts the identical second one as a repeat
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 50,
      msg: 'work after a response failed',
      err: { message: 'a defect in a finisher' },
    });
  });
});
