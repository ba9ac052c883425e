import type { SourceConfig } from '@domain-index/indexer';
import { FeedFetchError } from './fetch-error';

/** Sent with every feed request: some marketplaces refuse requests without a User-Agent. */
const USER_AGENT = 'domain-index/1.0 (marketplace feed sync)';

const ENV_REFERENCE = /^env:(.+)$/;

/** The headers and query parameters of a source's requests, and the secret values among them. */
export interface FeedRequest {
  headers: Record<string, string>;
  query: [string, string][];
  /** Values read from the environment: never shown in a message, a log or any output. */
  secrets: string[];
  /**
   * The origin of the source's feed URL: its headers and query go to this origin only, never
   * to another one a redirect or a next-page link points at.
   */
  origin: string;
}

/**
 * Resolves a source's headers and query parameters for a fetch: `env:NAME` values are read
 * from the environment now, not when the sources file is loaded, so a rotated secret is used
 * from the next fetch. A variable that is not set fails the fetch, naming the variable only.
 */
export function resolveRequest(source: SourceConfig, env: NodeJS.ProcessEnv = process.env): FeedRequest {
  const secrets: string[] = [];
  const resolve = (what: string, value: string): string => {
    const name = ENV_REFERENCE.exec(value)?.[1];
    if (name === undefined) return value;
    const secret = env[name];
    if (secret === undefined || secret === '') {
      throw new FeedFetchError(`${what} of source ${source.id} is read from the environment variable ${name}, which is not set`, false);
    }
    // as it may appear in a message: raw, percent-encoded, or form-encoded by URLSearchParams
    secrets.push(secret, encodeURIComponent(secret), new URLSearchParams([['', secret]]).toString().slice(1));
    return secret;
  };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(source.headers ?? {})) headers[name.toLowerCase()] = resolve(`header ${name}`, value);
  headers['user-agent'] ??= USER_AGENT;
  const query = Object.entries(source.query ?? {}).map(([name, value]): [string, string] => [name, resolve(`query parameter ${name}`, value)]);
  return { headers, query, secrets: [...new Set(secrets)].sort((a, b) => b.length - a.length), origin: originOf(source.feed) };
}

/** The origin of a URL (scheme, host, port), or '' for anything else, such as a file path. */
export function originOf(url: string): string {
  try {
    return /^https?:\/\//i.test(url) ? new URL(url).origin : '';
  } catch {
    return '';
  }
}

/** The secret values of a source's requests, for redacting any message (none when they cannot be read). */
export function secretsOf(source: SourceConfig): string[] {
  try {
    return resolveRequest(source).secrets;
  } catch {
    return [];
  }
}

/** `text` with every secret replaced by `***`: for any message that may reach a log or an operator. */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (secret !== '') result = result.split(secret).join('***');
  return result;
}

/** The URL with the source's query parameters set (a server's next-page link may already carry them). */
export function withQuery(url: string, query: readonly [string, string][]): string {
  if (query.length === 0) return url;
  const target = new URL(url);
  for (const [name, value] of query) target.searchParams.set(name, value);
  return target.href;
}

/** A URL as it may be shown: scheme, host and path; never its query, which may hold a secret. */
export function shownUrl(url: string): string {
  try {
    const { origin, pathname } = new URL(url);
    return `${origin}${pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}
