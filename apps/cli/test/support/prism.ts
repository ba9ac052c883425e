import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';

/** The Prism CLI's script, from the @stoplight/prism-cli devDependency. */
const PRISM_CLI = (() => {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@stoplight/prism-cli/package.json');
  const { bin } = require(manifest) as { bin: { prism: string } };
  return join(dirname(manifest), bin.prism);
})();

/** A `prism proxy` process on a loopback port of its own. */
export interface PrismProxy {
  readonly url: string;
  /** Everything it has logged so far: each violation is a line there too. */
  output(): string;
  close(): Promise<void>;
}

/**
 * Starts `prism proxy <document> <upstream> --errors` on 127.0.0.1 and an ephemeral port, with
 * `extra` arguments. With --errors, Prism answers a response that breaks the document with 500
 * `application/problem+json` of type `...#VIOLATIONS` in place of the upstream's answer; every
 * violation of the request or the response, whatever its severity, is also listed in the
 * `sl-violations` header of the answer.
 */
export async function startPrismProxy(
  document: string,
  upstream: string,
  extra: string[] = [],
): Promise<PrismProxy> {
  const child = spawn(
    process.execPath,
    [
      PRISM_CLI,
      'proxy',
      document,
      upstream,
      '--errors',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      ...extra,
    ],
    {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const listening = new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const found = /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (found !== null) resolve(found[1]!);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      reject(new Error(`prism proxy exited (${String(code)}) before listening:\n${output}`));
    });
  });
  const timeout = setTimeout(() => child.kill(), 60_000);
  const url = await listening.finally(() => clearTimeout(timeout));
  return {
    url,
    output: () => output,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    },
  };
}

/** What a stub answer is asked for with: the status to answer. */
export const STUB_HEADER = 'x-conformance-stub';
/** The body of every stub answer: an object no response schema of the document allows. */
export const STUB_BODY = { conformance_stub: true };

/**
 * An HTTP proxy to `target` that answers a request carrying {@link STUB_HEADER} itself, with that
 * status and {@link STUB_BODY} as JSON: Prism in front of it must flag every such answer, which
 * shows that it compiled and applied the schema of that response (a schema it cannot compile
 * it skips silently).
 */
export async function startStubbingProxy(
  target: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const stub = req.headers[STUB_HEADER];
    if (typeof stub === 'string') {
      req.resume();
      res.writeHead(Number(stub), { 'content-type': 'application/json' });
      res.end(JSON.stringify(STUB_BODY));
      return;
    }
    const forwarded = request(
      `${target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
