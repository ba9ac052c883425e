import { isWellFormedKey } from '@domain-index/accounts/api-key';

/** The start of an API key: a value with it is a key, or a mistyped one, and never logged. */
const KEY_START = /dix_(?:live|test)_/;
/** The key-shaped runs of a text, each then checked for its checksum. */
const KEY_SHAPED = /dix_(?:live|test)_[0-9A-Za-z]+/g;

/** Whether a text holds something that starts like an API key. */
export function hasKeyLikeValue(text: string): boolean {
  return text.includes('dix_') && KEY_START.test(text);
}

/** One API key found in a URL, and where: `path` or `query parameter <name>`. */
export interface KeyInUrl {
  where: string;
  key: string;
}

/** The most of a parameter's name kept in a revocation's reason: the name is the client's choice. */
const NAME_KEPT = 64;

/** The valid keys (shape and checksum) in a text. */
function validKeys(text: string): string[] {
  if (!hasKeyLikeValue(text)) return [];
  return [...text.matchAll(KEY_SHAPED)].map((match) => match[0]).filter(isWellFormedKey);
}

/**
 * A path percent-decoded where it can be, so that an encoded key is found too. Only a path with
 * a `%` is decoded: this runs on every request.
 */
function decodedPath(path: string): string {
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Every valid API key in a request's path and query values: a key in a URL has been seen by
 * every proxy and log on the way, so each is revoked as leaked, whatever the parameter.
 */
export function keysInUrl(path: string, query: Readonly<Record<string, unknown>>): KeyInUrl[] {
  const found = validKeys(decodedPath(path)).map((key) => ({ where: 'path', key }));
  for (const [name, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (typeof one === 'string') found.push(...validKeys(one).map((key) => ({ where: `query parameter ${hasKeyLikeValue(name) ? '(a key)' : name.slice(0, NAME_KEPT)}`, key })));
    }
    found.push(...validKeys(name).map((key) => ({ where: 'name of a query parameter', key })));
  }
  return found;
}
