import { createRequire } from 'node:module';
import { domainToASCII, domainToUnicode } from 'node:url';

/** A registrable domain name split into the parts the index stores. */
export interface NormalisedName {
  /** The whole name, lowercase ASCII/punycode, no trailing dot. */
  domainName: string;
  /** The full public suffix in ASCII/punycode; may contain dots (`co.uk`). */
  tld: string;
  /** The name without its public suffix: the single registrable label. */
  brand: string;
  /** brand.length, counted on the ASCII/punycode form. */
  length: number;
  /** The brand as the owner typed it contains a hyphen (punycode encoding hyphens do not count). */
  hasHyphens: boolean;
  /** The brand as the owner typed it contains a digit (punycode encoding digits do not count). */
  hasNumbers: boolean;
}

export type NormaliseResult = { ok: true; value: NormalisedName } | { ok: false; reason: string };

/** The part of psl's result this module reads. */
interface PslParsed {
  sld: string | null;
  domain: string | null;
  subdomain: string | null;
  listed: boolean;
}
interface Psl {
  parse(domain: string): PslParsed | { error: { code: string; message: string } };
}

// psl's "exports" map hides its bundled typings from moduleResolution Bundler, so it is loaded
// untyped and given the slice of its published type that is used here.
const psl = createRequire(import.meta.url)('psl') as Psl;

const MAX_NAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
const CODE_DOT = 46;
const CODE_HYPHEN = 45;
const CODE_0 = 48;
const CODE_9 = 57;
const CODE_A = 97;
const CODE_Z = 122;
const INVALID = 'not a valid domain name';

/**
 * The Unicode form of an 'xn--' label, or null when it is not a valid A-label: it must decode,
 * decode to something non-ASCII, and encode back to exactly itself (rejects 'xn--abc-' and
 * non-canonical encodings).
 */
function decodeALabel(label: string): string | null {
  const unicode = domainToUnicode(label);
  if (unicode === '' || domainToASCII(unicode) !== label) return null;
  for (let i = 0; i < unicode.length; i++) if (unicode.charCodeAt(i) > 0x7f) return unicode;
  return null;
}

function quoted(text: string): string {
  return JSON.stringify(text);
}

/**
 * Validates a lowercase name and splits it, or returns the reason it is not a registrable domain.
 * A single linear scan checks the syntax; psl then decides the public suffix.
 */
function split(name: string): NormalisedName | string {
  if (name.length === 0) return `${INVALID}: empty`;
  if (name.length > MAX_NAME_LENGTH) return `${INVALID}: longer than ${MAX_NAME_LENGTH} characters`;

  let firstDot = -1;
  let labelStart = 0;
  let brandHasDigit = false;
  let brandUnicode: string | null = null;
  for (let i = 0; i <= name.length; i++) {
    const c = i < name.length ? name.charCodeAt(i) : CODE_DOT;
    if (c === CODE_DOT) {
      const length = i - labelStart;
      if (length === 0) return `${INVALID}: empty label`;
      if (length > MAX_LABEL_LENGTH) {
        return `${INVALID}: label longer than ${MAX_LABEL_LENGTH} characters`;
      }
      if (name.charCodeAt(labelStart) === CODE_HYPHEN || name.charCodeAt(i - 1) === CODE_HYPHEN) {
        return `${INVALID}: label starts or ends with a hyphen`;
      }
      // '--' in positions 3-4 is reserved for IDNA A-labels (RFC 5891 4.2.3.1).
      if (
        length >= 4 &&
        name.charCodeAt(labelStart + 2) === CODE_HYPHEN &&
        name.charCodeAt(labelStart + 3) === CODE_HYPHEN
      ) {
        const label = name.slice(labelStart, i);
        const unicode = label.startsWith('xn--') ? decodeALabel(label) : null;
        if (unicode === null) {
          return `${INVALID}: ${quoted(label)} has "--" in positions 3-4 but is not valid punycode`;
        }
        if (firstDot < 0) brandUnicode = unicode;
      }
      if (firstDot < 0) firstDot = i;
      labelStart = i + 1;
    } else if (c >= CODE_0 && c <= CODE_9) {
      if (firstDot < 0) brandHasDigit = true;
    } else if ((c < CODE_A || c > CODE_Z) && c !== CODE_HYPHEN) {
      const character = String.fromCodePoint(name.codePointAt(i)!);
      return `${INVALID}: invalid character ${quoted(character)}`;
    }
  }
  if (firstDot === name.length) return `${INVALID}: ${quoted(name)} has a single label`;

  const parsed = psl.parse(name);
  if ('error' in parsed) return `${INVALID}: ${parsed.error.message}`;
  if (!parsed.listed) {
    const last = name.slice(name.lastIndexOf('.') + 1);
    return `unknown public suffix: .${last} is not on the Public Suffix List`;
  }
  // psl returns tld in Unicode for IDN suffixes, so the ASCII parts are cut from the input.
  const brand = name.slice(0, firstDot);
  if (parsed.sld === null) return `not a registrable domain: ${name} is a public suffix`;
  if (parsed.subdomain !== null) {
    return `not a registrable domain: ${name} is a subdomain of ${parsed.domain ?? 'another name'}`;
  }
  if (parsed.sld !== brand) return `not a registrable domain: ${name}`;

  return {
    domainName: name,
    tld: name.slice(firstDot + 1),
    brand,
    length: brand.length,
    hasHyphens: brandUnicode === null ? brand.includes('-') : brandUnicode.includes('-'),
    hasNumbers: brandUnicode === null ? brandHasDigit : /\p{Nd}/u.test(brandUnicode),
  };
}

function hasNonAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return true;
  return false;
}

/**
 * Normalises a domain name from a marketplace feed: trims, lowercases, converts a Unicode (IDN)
 * name to punycode, strips one trailing dot, then validates it as a registrable domain: one label
 * plus a public suffix known to the Public Suffix List. Returns the split name, or a short
 * human-readable reason for the bad-row report.
 */
export function normaliseDomainName(raw: string): NormaliseResult {
  let name = raw.trim().toLowerCase();
  if (hasNonAscii(name)) {
    // UTS #46 processing; also maps full-width letters and dots, hence before the dot strip.
    name = domainToASCII(name);
    if (name === '') return { ok: false, reason: `${INVALID}: not a convertible Unicode name` };
  }
  if (name.endsWith('.')) name = name.slice(0, -1);
  const result = split(name);
  return typeof result === 'string' ? { ok: false, reason: result } : { ok: true, value: result };
}

/**
 * Parses the `{domain}` path segment of the lookup endpoint. Per the spec it is only lowercased:
 * no trimming, no trailing-dot removal, no IDN conversion, so Unicode input is invalid here.
 * Returns null for anything that is not a valid registrable domain (400 `invalid_domain`).
 */
export function parseLookupDomain(segment: string): NormalisedName | null {
  // Checked before lowercasing: 'K' (Kelvin sign) lowercases to ASCII 'k'.
  if (hasNonAscii(segment)) return null;
  const result = split(segment.toLowerCase());
  return typeof result === 'string' ? null : result;
}
