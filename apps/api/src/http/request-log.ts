import type { RequestHandler } from 'express';
import type { Logger } from '@domain-index/runtime/logger';
import { clientAddress } from './client-address';
import { hasKeyLikeValue } from './keys-in-url';
import { isKeyLikeParam } from './reject-key-in-query';

const REDACTED = '[redacted]';
/** A path segment that looks like a secret token (a set-password link's is 43 characters). */
const TOKEN_LIKE = /^[A-Za-z0-9_-]{40,}$/;
/**
 * The segments of the links mailed to people after which their token comes, and how many
 * segments later: a set-password link's token right after it, an unsubscribe link's after the
 * alert's id (`/alerts/unsubscribe/<alert id>/<token>`), a digest confirmation link's right after
 * it. These tokens are short enough (31 characters) that TOKEN_LIKE alone would miss them.
 */
const LINK_TOKEN_AFTER: Readonly<Record<string, number>> = { 'set-password': 1, unsubscribe: 2, 'confirm-email': 1 };

/** A percent-decoded segment, or the segment as it is when it is not valid percent-encoding. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The path with its secrets replaced, segment by segment, whatever the case, the slashes or the
 * percent-encoding: the token of a mailed link (LINK_TOKEN_AFTER), anything with an API key in
 * it, and any segment long and random enough to be a token.
 */
function redactPath(path: string): string {
  // counted in non-empty segments: `//` must not move a token out of reach
  let seen = 0;
  const tokenAt = new Set<number>();
  return path
    .split('/')
    .map((segment) => {
      if (segment === '') return segment;
      seen += 1;
      const plain = decoded(segment);
      const after = LINK_TOKEN_AFTER[plain.toLowerCase()];
      if (after !== undefined) tokenAt.add(seen + after);
      return tokenAt.has(seen) || hasKeyLikeValue(plain) || TOKEN_LIKE.test(plain) ? REDACTED : segment;
    })
    .join('/');
}

/** The query with the value of every key-like parameter, and every value or name holding a key, replaced. */
function redactQuery(query: string): string {
  const params = new URLSearchParams(query);
  let redacted = false;
  const kept = new URLSearchParams();
  for (const [name, value] of params) {
    const nameIsKey = hasKeyLikeValue(name);
    const secret = nameIsKey || isKeyLikeParam(name) || hasKeyLikeValue(value);
    redacted ||= secret;
    kept.append(nameIsKey ? REDACTED : name, secret ? REDACTED : value);
  }
  return redacted ? kept.toString() : query;
}

/**
 * The path and query a request was routed by, with every secret in them replaced. A request in
 * absolute form (`GET http://host/path`) is routed by its path, so it is logged by its path: the
 * scheme and host are left out, and the path is redacted like any other.
 */
export function redactUrl(original: string): string {
  let target = original;
  if (!target.startsWith('/')) {
    try {
      const absolute = new URL(target);
      target = `${absolute.pathname}${absolute.search}`;
    } catch {
      // `*` of OPTIONS, or not a URL: redacted as it is
    }
  }
  const queryStart = target.indexOf('?');
  if (queryStart < 0) return redactPath(target);
  return `${redactPath(target.slice(0, queryStart))}?${redactQuery(target.slice(queryStart + 1))}`;
}

/**
 * One access-log line per request, when its response is done: `info` below 500, `error` from
 * 500, "request aborted" when the client left first. With the client address (as TRUST_PROXY
 * lets Express see it), the id of the API key that authenticated (never the key), and the
 * process id (with WORKERS, which worker answered). No headers, so no Authorization value, and
 * a redacted URL.
 *
 * Written here rather than with pino-http: pino-http builds two child loggers per request,
 * serialising the request into their bindings, whether or not the line is ever written; under
 * lookup load that was 8% of the API's CPU with the log level at warn. Here nothing is built
 * unless the line's level is enabled.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    // 'close' comes last, both after a response is finished and when the client goes away.
    res.once('close', () => {
      const level = res.statusCode >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const caller = res.locals.caller as { keyId?: unknown } | undefined;
      logger[level](
        {
          req: { id: res.locals.requestId as string, method: req.method, url: redactUrl(req.originalUrl), remoteAddress: clientAddress(req) },
          res: { statusCode: res.statusCode },
          ...(typeof caller?.keyId === 'string' ? { keyId: caller.keyId } : {}),
          pid: process.pid,
          responseTime: Math.round(performance.now() - started),
        },
        res.writableFinished ? 'request completed' : 'request aborted',
      );
    });
    next();
  };
}
