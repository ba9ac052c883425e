/** What the client never exceeds for one RDAP host: requests in flight, and requests started per minute. */
export interface HostLimits {
  concurrency: number;
  perMinute: number;
}

/** RDAP_LIMITS read: limits by `host` or `host:port` (lower case), and the `*` entry for every other host. */
export interface RdapLimits {
  hosts: ReadonlyMap<string, HostLimits>;
  fallback: HostLimits;
}

/**
 * For a host RDAP_LIMITS does not name: two requests in flight, one a second. No registry we
 * query (Verisign, PIR, the ccTLDs) publishes a number; this is as slow as a polite crawler
 * and leaves room for the scheduled checks of a few thousand watched names an hour per registry.
 */
export const DEFAULT_HOST_LIMITS: HostLimits = { concurrency: 2, perMinute: 60 };

/** The most an entry may ask for: a typo of an extra digit should not turn into a flood. */
export const MAX_CONCURRENCY = 64;
export const MAX_PER_MINUTE = 6000;

const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const ENTRY = /^([^=\s]+)\s*=\s*(\d+)\s*\/\s*(\d+)$/;
const FORMAT =
  'host[:port]=concurrency/perMinute, e.g. rdap.verisign.com=4/600, separated by commas; * for every other host';

/**
 * Reads RDAP_LIMITS: comma-separated `host[:port]=concurrency/perMinute` entries, and `*=c/p` for
 * the hosts not named (else {@link DEFAULT_HOST_LIMITS}). Hosts are DNS names or IPv4 addresses,
 * matched case-insensitively; `host:port` is more specific than `host`. Empty text means the
 * defaults. Throws an Error naming the entry and what to fix: a missing `=` or `/`, a bad host
 * or port, a number that is not a whole number from 1 to the maximum, a host named twice.
 */
export function parseRdapLimits(text: string): RdapLimits {
  const hosts = new Map<string, HostLimits>();
  let fallback: HostLimits | undefined;
  const trimmed = text.trim();
  if (trimmed === '') return { hosts, fallback: DEFAULT_HOST_LIMITS };
  for (const raw of trimmed.split(',')) {
    const entry = raw.trim();
    const fail = (why: string): never => {
      throw new Error(`RDAP_LIMITS: entry "${entry}" ${why} (format: ${FORMAT})`);
    };
    if (entry === '') fail('is empty: remove the extra comma');
    const match = ENTRY.exec(entry);
    if (match === null) fail('is not host[:port]=concurrency/perMinute with whole numbers');
    const [, target, concurrencyText, perMinuteText] = match as unknown as [
      string,
      string,
      string,
      string,
    ];
    const key = target.toLowerCase();
    if (key !== '*') {
      const [host, port, ...rest] = key.split(':');
      if (
        rest.length > 0 ||
        host === undefined ||
        !HOST.test(host) ||
        (port !== undefined && !/^\d+$/.test(port))
      )
        fail(`has a host "${target}" that is not a DNS name or IPv4 address`);
      if (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65535)) {
        fail(`has a port "${port}" that is not 1 to 65535`);
      }
    }
    const concurrency = Number(concurrencyText);
    const perMinute = Number(perMinuteText);
    if (concurrency < 1 || concurrency > MAX_CONCURRENCY)
      fail(`asks for concurrency ${concurrencyText}: use 1 to ${MAX_CONCURRENCY}`);
    if (perMinute < 1 || perMinute > MAX_PER_MINUTE)
      fail(`asks for ${perMinuteText} requests a minute: use 1 to ${MAX_PER_MINUTE}`);
    if (key === '*' ? fallback !== undefined : hosts.has(key))
      fail(`names ${target} a second time: keep one entry per host`);
    if (key === '*') fallback = { concurrency, perMinute };
    else hosts.set(key, { concurrency, perMinute });
  }
  return { hosts, fallback: fallback ?? DEFAULT_HOST_LIMITS };
}

/**
 * The `host:port` (port only when the URL names one) and `host` keys a server's limits are
 * looked up by. A server may be given as a URL or as `host[:port]`.
 */
export function hostKeys(server: string): string[] {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `http://${server}`);
  } catch {
    return [server.toLowerCase()];
  }
  const host = url.hostname.toLowerCase();
  return url.port === '' ? [host] : [`${host}:${url.port}`, host];
}

/** The limits for a server: its `host:port` entry, else its `host` entry, else the fallback. */
export function limitsFor(limits: RdapLimits, server: string): HostLimits {
  for (const key of hostKeys(server)) {
    const found = limits.hosts.get(key);
    if (found !== undefined) return found;
  }
  return limits.fallback;
}
