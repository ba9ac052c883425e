import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Why an address may not receive a webhook. */
export type RefusedCategory =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'carrier_grade_nat'
  | 'link_local'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved';

/** The verdict of the rules on one address. */
export type AddressVerdict =
  | { refused: false }
  | {
      refused: true;
      category: RefusedCategory;
      /** The special-purpose range that refused it, e.g. `169.254.0.0/16`. */
      range: string;
      /** When an IPv6 address embeds an IPv4 one, the form it took (the IPv4 address was judged). */
      embedded?: 'ipv4-mapped' | 'ipv4-compatible' | 'ipv4-translated' | 'nat64';
    };

type Rule = readonly [cidr: string, category: RefusedCategory];

/**
 * IPv4 ranges that are not the public internet (IANA's IPv4 special-purpose registry, RFC 6890,
 * and the multicast and class E blocks); the first match names the category. AS112 and AMT
 * anycast are public services of the registry but no webhook receiver, and are left public.
 */
const IPV4_RULES: readonly Rule[] = [
  ['0.0.0.0/8', 'unspecified'], // "this network": 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier_grade_nat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'], // cloud metadata services (169.254.169.254) live here
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'], // deprecated 6to4 relay anycast
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
];

/** IPv6 forms that carry an IPv4 address in their last 32 bits, judged by that address. */
const EMBEDDING_IPV4: readonly (readonly [
  cidr: string,
  form: 'ipv4-mapped' | 'ipv4-translated' | 'nat64' | 'ipv4-compatible',
])[] = [
  ['::ffff:0:0/96', 'ipv4-mapped'],
  ['::ffff:0:0:0/96', 'ipv4-translated'], // RFC 6145
  ['64:ff9b::/96', 'nat64'], // RFC 6052 well-known prefix: a DNS64 resolver's answer for a public IPv4 host
  ['::/96', 'ipv4-compatible'], // deprecated (RFC 4291); checked after :: and ::1
];

/**
 * IPv6 ranges inside global unicast (2000::/3) that are not the public internet (IANA's IPv6
 * special-purpose registry); everything outside 2000::/3 is refused anyway, except the forms
 * that embed an IPv4 address.
 */
const IPV6_RULES: readonly Rule[] = [
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'], // RFC 9637
  ['2001:2::/48', 'benchmarking'],
  ['2001::/23', 'reserved'], // IETF protocol assignments, Teredo (2001::/32) included
  ['2002::/16', 'reserved'], // 6to4, deprecated, and it could wrap any IPv4 address
];

/** IPv6 ranges outside 2000::/3 with a more precise name than "reserved". */
const IPV6_NAMED: readonly Rule[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fc00::/7', 'private'], // unique local
  ['fec0::/10', 'private'], // deprecated site-local
  ['fe80::/10', 'link_local'],
  ['ff00::/8', 'multicast'],
  ['64:ff9b:1::/48', 'private'], // RFC 8215 local-use NAT64
];

const compile = (rules: readonly Rule[]) =>
  rules.map(([cidr, category]) => ({ cidr, category, range: ipaddr.parseCIDR(cidr) }));
const ipv4Rules = compile(IPV4_RULES);
const ipv6Rules = compile(IPV6_RULES);
const ipv6Named = compile(IPV6_NAMED);
const embeddings = EMBEDDING_IPV4.map(([cidr, form]) => ({
  cidr,
  form,
  range: ipaddr.parseCIDR(cidr),
}));
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** Whether `address` lies in `range` (a range of the other IP version never matches). */
function inRange(address: Address, range: [Address, number]): boolean {
  return address.kind() === range[0].kind() && address.match(range);
}

/** The IPv4 address in the last 32 bits of an IPv6 one. */
function lastIpv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = address.toByteArray().slice(12);
  return new ipaddr.IPv4(bytes);
}

function judgeIpv4(address: ipaddr.IPv4): AddressVerdict {
  const rule = ipv4Rules.find(({ range }) => inRange(address, range));
  return rule === undefined
    ? { refused: false }
    : { refused: true, category: rule.category, range: rule.cidr };
}

function judgeIpv6(address: ipaddr.IPv6): AddressVerdict {
  const named = ipv6Named.find(({ range }) => inRange(address, range));
  if (named !== undefined) return { refused: true, category: named.category, range: named.cidr };
  const embedding = embeddings.find(({ range }) => inRange(address, range));
  if (embedding !== undefined) {
    const inner = judgeIpv4(lastIpv4(address));
    if (inner.refused) return { ...inner, embedded: embedding.form };
    // Compatible and translated forms are never a real host's address: refused even for a public IPv4.
    if (embedding.form === 'ipv4-compatible' || embedding.form === 'ipv4-translated') {
      return {
        refused: true,
        category: 'reserved',
        range: embedding.cidr,
        embedded: embedding.form,
      };
    }
    return { refused: false };
  }
  if (!inRange(address, GLOBAL_UNICAST))
    return { refused: true, category: 'reserved', range: 'outside 2000::/3' };
  const rule = ipv6Rules.find(({ range }) => inRange(address, range));
  return rule === undefined
    ? { refused: false }
    : { refused: true, category: rule.category, range: rule.cidr };
}

/** `text` as an address when it is an IP literal (brackets of a URL's IPv6 host allowed), else undefined. */
function parseLiteral(text: string): Address | undefined {
  const bracketed = text.startsWith('[') && text.endsWith(']');
  const bare = bracketed ? text.slice(1, -1) : text;
  // node:net's strict test first: ipaddr.js would also read forms like "0x7f.1" or "2130706433".
  const version = isIP(bare);
  if (version === 4 && !bracketed) return ipaddr.parse(bare);
  if (version !== 6) return undefined;
  // Through the WHATWG URL parser's canonical form (the zone, link-local only, left off): ipaddr.js
  // alone reads the deprecated "::a.b.c.d" as "::ffff:a.b.c.d"; RFC 4291 and the URL parser do not.
  return ipaddr.parse(new URL(`http://[${bare.replace(/%.*$/, '')}]/`).hostname.slice(1, -1));
}

/**
 * Whether the rules refuse `address` (an IP address as DNS or a URL gives it) as a webhook
 * destination, and why: loopback, private, link-local, multicast, unspecified, broadcast, carrier-
 * grade NAT, documentation, benchmarking and reserved ranges, also inside IPv4-mapped, -compatible,
 * -translated and NAT64 IPv6 forms. Anything that is not an IP address is refused as reserved.
 * Pure: no name is resolved and no connection is made.
 */
export function judgeAddress(address: string): AddressVerdict {
  const parsed = parseLiteral(address);
  if (parsed === undefined)
    return { refused: true, category: 'reserved', range: 'not an IP address' };
  return parsed.kind() === 'ipv4'
    ? judgeIpv4(parsed as ipaddr.IPv4)
    : judgeIpv6(parsed as ipaddr.IPv6);
}

/** A host name on the allow-list: lowercase ASCII without a trailing dot, and the one port it is allowed on, if the entry named one. */
export interface AllowedName {
  readonly name: string;
  readonly port?: number | undefined;
}

/** An address or CIDR on the allow-list (an address is a CIDR of all its bits), and the one port it is allowed on, if the entry named one. */
export interface AllowedRange {
  readonly range: [Address, number];
  readonly port?: number | undefined;
}

/**
 * What the operator lets webhooks reach although the rules refuse it (WEBHOOK_ALLOWED_HOSTS):
 * host names, trusted wherever they resolve, and addresses or CIDRs; an entry with a port allows
 * that port only, one without allows every port.
 */
export interface AllowList {
  readonly names: readonly AllowedName[];
  readonly ranges: readonly AllowedRange[];
}

/** Allows nothing: every address is judged by the rules. */
export const EMPTY_ALLOW_LIST: AllowList = { names: [], ranges: [] };

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** Characters a URL would read as something other than a host name (a scheme, a port, a path, a user). */
const NOT_IN_A_NAME = /[\s/:@?#[\]*\\%]/;

/** What every refused entry is told it may be. */
const ENTRY_FORMS =
  'a host name, an IP address or a CIDR, with an optional port (hooks.internal:8443, 127.0.0.1:9000, [::1]:9000); no scheme, path or wildcard';

/** A host name as a URL carries it and as the allow-list stores it: lowercase ASCII, no trailing dot. */
function normaliseName(name: string): string {
  return domainToASCII(name.toLowerCase()).replace(/\.$/, '');
}

/**
 * An entry split into its host and its port: `[v6]:port` and `[v6]`, `host:port` when the entry
 * has one colon (an IPv6 address without brackets has several, and no port). `port` is the text
 * after the colon, checked by the caller; undefined without one.
 */
function splitPort(entry: string): { host: string; port?: string; bracketed: boolean } {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(entry);
  if (bracketed !== null) return { host: bracketed[1] ?? '', bracketed: true, ...(bracketed[2] === undefined ? {} : { port: bracketed[2] }) };
  const colon = entry.indexOf(':');
  if (colon < 0 || colon !== entry.lastIndexOf(':')) return { host: entry, bracketed: false };
  return { host: entry.slice(0, colon), port: entry.slice(colon + 1), bracketed: false };
}

/**
 * Parses WEBHOOK_ALLOWED_HOSTS: comma-separated host names (`hooks.internal`, `localhost`), IP
 * addresses (`127.0.0.1`, `::1`) and CIDRs (`127.0.0.0/8`, `fd00::/8`); a host name or an address
 * may take a port (`hooks.internal:8443`, `127.0.0.1:9000`, `[::1]:9000`: an IPv6 address with a
 * port in brackets), and then allows that port only. Blank or unset allows nothing. A bad entry
 * is an error naming it, never silently skipped.
 */
export function parseAllowedHosts(
  value: string | undefined,
): { ok: true; allowList: AllowList } | { ok: false; reason: string } {
  const names: AllowedName[] = [];
  const ranges: AllowedRange[] = [];
  for (const raw of (value ?? '').split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const refused = { ok: false as const, reason: `"${entry}" is not ${ENTRY_FORMS}` };
    const [address = '', bits, extra] = entry.split('/');
    const parsed = parseLiteral(address);
    if (bits !== undefined && (parsed !== undefined || /^[0-9a-f.:[\]]+$/i.test(address))) {
      const max = parsed?.kind() === 'ipv4' ? 32 : 128;
      if (/^\d{1,3}\]?:/.test(bits) || address.startsWith('[')) {
        return { ok: false, reason: `"${entry}" is not a CIDR like 127.0.0.0/8 or fd00::/8: a CIDR takes no brackets and no port (list its addresses with their port instead)` };
      }
      if (
        parsed === undefined ||
        extra !== undefined ||
        !/^\d{1,3}$/.test(bits) ||
        Number(bits) > max
      ) {
        return { ok: false, reason: `"${entry}" is not a CIDR like 127.0.0.0/8 or fd00::/8` };
      }
      ranges.push({ range: [parsed, Number(bits)] });
      continue;
    }
    if (bits !== undefined) return refused;
    const split = splitPort(entry);
    let port: number | undefined;
    if (split.port !== undefined) {
      if (!/^\d{1,5}$/.test(split.port) || Number(split.port) < 1 || Number(split.port) > 65_535) {
        return { ok: false, reason: `"${entry}" has a port that is not a whole number from 1 to 65535` };
      }
      port = Number(split.port);
    }
    const literal = parseLiteral(split.host);
    if (literal !== undefined) {
      // an IPv6 address takes a port in brackets only (splitPort sees none without); an IPv4 one never has brackets
      if (split.bracketed && literal.kind() === 'ipv4') return refused;
      ranges.push({ range: [literal, literal.kind() === 'ipv4' ? 32 : 128], ...(port === undefined ? {} : { port }) });
      continue;
    }
    if (split.bracketed) return refused;
    const name = NOT_IN_A_NAME.test(split.host) ? '' : normaliseName(split.host);
    // A last label of digits makes a URL parser read the host as an IPv4 address ("10.0.0" is 10.0.0.0).
    if (!HOST_NAME.test(name) || /(^|\.)(\d+|0x[0-9a-f]*)$/.test(name)) return refused;
    names.push({ name, ...(port === undefined ? {} : { port }) });
  }
  return { ok: true, allowList: { names, ranges } };
}

/** Whether an entry's port (none: every port) allows `port`. */
const portAllowed = (entry: { port?: number | undefined }, port: number) => entry.port === undefined || entry.port === port;

/** Whether the operator listed this URL host on this port: its name, or the address it is, within a listed range. */
export function isHostAllowListed(allowList: AllowList, host: string, port: number): boolean {
  if (parseLiteral(host) !== undefined) return isAddressAllowListed(allowList, host, port);
  const name = normaliseName(host);
  return allowList.names.some((entry) => entry.name === name && portAllowed(entry, port));
}

/** Whether `address` on `port` lies in a listed address or CIDR (an IPv4-mapped IPv6 address counts as its IPv4). */
export function isAddressAllowListed(allowList: AllowList, address: string, port: number): boolean {
  const parsed = parseLiteral(address);
  if (parsed === undefined) return false;
  const forms: Address[] = [parsed];
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    forms.push((parsed as ipaddr.IPv6).toIPv4Address());
  return allowList.ranges.some((entry) => portAllowed(entry, port) && forms.some((form) => inRange(form, entry.range)));
}

/** True when `text` is an IP address literal (a URL's bracketed IPv6 host included). */
export function isIpLiteral(text: string): boolean {
  return parseLiteral(text) !== undefined;
}

/** Whether a webhook may go to `address`, reached as `host`, and what decided. */
export type DestinationDecision =
  | { permitted: true; by: 'rules' | 'allow-list' }
  | { permitted: false; verdict: Extract<AddressVerdict, { refused: true }> };

/**
 * The decision for one resolved address of a URL's host, reached on `port`: permitted when the
 * host name or the address is on the allow-list for that port, else when the rules do not refuse
 * the address.
 */
export function decideDestination(
  allowList: AllowList,
  host: string,
  address: string,
  port: number,
): DestinationDecision {
  if (isHostAllowListed(allowList, host, port) || isAddressAllowListed(allowList, address, port))
    return { permitted: true, by: 'allow-list' };
  const verdict = judgeAddress(address);
  return verdict.refused ? { permitted: false, verdict } : { permitted: true, by: 'rules' };
}
