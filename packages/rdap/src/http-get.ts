import { request, type Dispatcher } from 'undici';

/** What one GET gave: a status with its headers, and the body read when asked for (capped). */
export type GetResult =
  | {
      kind: 'response';
      status: number;
      headers: Record<string, string | undefined>;
      body: string | null;
    }
  | { kind: 'timeout' }
  | { kind: 'too_large' }
  | { kind: 'network'; reason: string };

export interface GetOptions {
  dispatcher: Dispatcher;
  timeoutMs: number;
  maxBytes: number;
  accept: string;
  userAgent: string;
  /** Read the body of responses with these statuses; others are discarded unread. */
  readBodyOf: (status: number) => boolean;
  /** The caller's and the client's: either aborting ends the request, rethrowing its reason. */
  signals: (AbortSignal | undefined)[];
}

/**
 * One GET, no redirects followed: a timeout that covers the whole exchange (headers and body),
 * and a body read no further than `maxBytes`. An abort of one of `signals` is rethrown as its
 * reason; a timeout, an oversized body and a network failure are results.
 */
export async function getOnce(url: string, options: GetOptions): Promise<GetResult> {
  // one controller and listeners removed after, rather than AbortSignal.any, which some Node 20
  // releases keep alive for as long as the long-lived signal it follows
  const signals = options.signals.filter((signal) => signal !== undefined);
  const aborted = () => signals.find((signal) => signal.aborted);
  if (aborted() !== undefined) throw aborted()!.reason;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  }, options.timeoutMs);
  const follow = () => controller.abort(aborted()?.reason);
  for (const signal of signals) signal.addEventListener('abort', follow);
  const signal = controller.signal;
  try {
    const response = await request(url, {
      dispatcher: options.dispatcher,
      method: 'GET',
      headers: { accept: options.accept, 'user-agent': options.userAgent },
      signal,
    });
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    if (!options.readBodyOf(response.statusCode)) {
      // read a short body to its end so the connection can be reused; a long one is cut off
      await response.body.dump({ limit: 16 * 1024 }).catch(() => undefined);
      return { kind: 'response', status: response.statusCode, headers, body: null };
    }
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      discard(response.body);
      return { kind: 'too_large' };
    }
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer;
      total += buffer.length;
      if (total > options.maxBytes) {
        discard(response.body);
        return { kind: 'too_large' };
      }
      chunks.push(buffer);
    }
    return {
      kind: 'response',
      status: response.statusCode,
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
  } catch (error) {
    if (aborted() !== undefined) throw aborted()!.reason;
    if (timedOut) return { kind: 'timeout' };
    return { kind: 'network', reason: describe(error) };
  } finally {
    clearTimeout(timer);
    for (const signal of signals) signal.removeEventListener('abort', follow);
  }
}

/** Stops reading a body and closes its connection; the abort this raises on the stream is expected. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${typeof code === 'string' ? `${code} ` : ''}${error.message}${cause}`;
}
