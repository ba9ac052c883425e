import { exportQuerySchema, KEY_LIKE_PARAMS, searchQuerySchema } from '@domain-index/contract';
import { hasKeyLikeValue } from '../http/keys-in-url';

/** What a secret, or anything that might be one, is replaced with. */
export const REDACTED = '[redacted]';
/** The most of a path and query kept: enough for any request the API answers. */
const PATH_MAX = 1_024;
/** The parameters the API knows: their values are shown when they are plain. */
const KNOWN_PARAMS = new Set([...Object.keys(searchQuerySchema.innerType().shape), ...Object.keys(exportQuerySchema.innerType().shape)]);
const KEY_PARAMS = new Set<string>(KEY_LIKE_PARAMS);
/**
 * A run of token characters long enough to be a secret: a session or link token (43), a hash,
 * a bearer token of another service. No domain label of a listed name is this long and random.
 */
const TOKEN_RUN = /[A-Za-z0-9_-]{32,}/;
/** A word this long that mixes lower case, upper case and digits is a password or a key of another kind. */
const MIXED_WORD = 12;
/** UUIDs (our request ids, and many clients' own) are identifiers, not secrets. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** A path segment as the API's paths have them: `api`, `v1`, `domains`, a domain name (IDNs too). */
const PLAIN_SEGMENT = /^[\p{L}\p{N}._-]{1,253}$/u;
/** A value of a known parameter as customers write them: search terms, suffixes, numbers, sort fields. */
const PLAIN_VALUE = /^[\p{L}\p{N} ._-]{0,300}$/u;
/** The name of an unknown parameter, shown (without its value) so a 400 unknown_parameter can be read. */
const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,40}$/;

function decoded(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Whether a text holds anything shaped like a key, a token or a password. */
export function looksSecret(text: string): boolean {
  if (hasKeyLikeValue(text)) return true;
  const rest = text.length < 32 ? text : text.replace(UUID, ' ');
  if (TOKEN_RUN.test(rest)) return true;
  return rest
    .split(/\s+/)
    .some(
      (word) =>
        word.length >= MIXED_WORD && /[a-z]/.test(word) && /[A-Z]/.test(word) && /[0-9]/.test(word),
    );
}

function loggedSegment(segment: string): string {
  if (segment === '') return segment;
  const plain = decoded(segment);
  return PLAIN_SEGMENT.test(plain) && !looksSecret(plain) ? segment : REDACTED;
}

function loggedQuery(query: string): string {
  const kept: string[] = [];
  for (const [name, value] of new URLSearchParams(query)) {
    const known = KNOWN_PARAMS.has(name);
    if (!known && !(PLAIN_NAME.test(name) && !looksSecret(name))) {
      kept.push(`${REDACTED}=${REDACTED}`);
      continue;
    }
    // An unknown parameter's value is never kept: nothing says what it holds.
    const showValue =
      known && !KEY_PARAMS.has(name) && PLAIN_VALUE.test(value) && !looksSecret(value);
    kept.push(`${name}=${showValue ? encodeURIComponent(value).replace(/%20/g, '+') : REDACTED}`);
  }
  return kept.join('&');
}

/**
 * The path and query of a request as the request log shows them: what the API's own paths and
 * parameters hold, and nothing that might be a secret. A path segment or a known parameter's
 * value is kept only when it is plain (letters, digits and the punctuation of domain names and
 * search terms) and holds nothing shaped like a key, a token or a password (a long run of token
 * characters, or a word of 12 or more mixing upper case, lower case and digits); an unknown parameter keeps its
 * name only, when that is plain. Headers and bodies are never logged at all.
 */
export function loggedPath(originalUrl: string): string {
  let target = originalUrl;
  if (!target.startsWith('/')) {
    try {
      const absolute = new URL(target);
      target = `${absolute.pathname}${absolute.search}`;
    } catch {
      return REDACTED;
    }
  }
  const queryStart = target.indexOf('?');
  const path = (queryStart < 0 ? target : target.slice(0, queryStart))
    .split('/')
    .map(loggedSegment)
    .join('/');
  const logged =
    queryStart < 0 || queryStart === target.length - 1
      ? path
      : `${path}?${loggedQuery(target.slice(queryStart + 1))}`;
  return logged.length <= PATH_MAX ? logged : `${logged.slice(0, PATH_MAX - 1)}…`;
}

/** A request id as logged: the client may choose it (X-Request-Id), so a secret-shaped one is not kept. */
export function loggedRequestId(requestId: string): string {
  return looksSecret(requestId) ? REDACTED : requestId;
}
