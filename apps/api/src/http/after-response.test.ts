import express from 'express';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
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
    app.use(afterResponse(finishers));
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

  it('runs the finishers after one that throws, and the server goes on answering', async () => {
    const warning = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const ran: number[] = [];
    let finished!: () => void;
    const allRan = new Promise<void>((resolve) => (finished = resolve));
    const app = express();
    app.use(
      afterResponse([
        () => {
          throw new Error('a defect in a finisher');
        },
        () => {
          ran.push(1);
          if (ran.length === 2) finished();
        },
      ]),
    );
    app.get('/', (_req, res) => res.end('ok'));
    try {
      await serving(app, async (url) => {
        expect((await fetch(url)).status).toBe(200);
        expect((await fetch(url)).status).toBe(200);
        await allRan;
      });
      expect(ran).toEqual([1, 1]);
      expect(warning).toHaveBeenCalledTimes(2);
    } finally {
      warning.mockRestore();
    }
  });
});
