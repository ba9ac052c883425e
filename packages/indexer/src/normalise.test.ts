import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseDomainName, parseLookupDomain } from './normalise';
import type { NormaliseResult } from './normalise';

function reasonOf(result: NormaliseResult): string {
  if (result.ok) throw new Error(`expected a rejection, got ${result.value.domainName}`);
  return result.reason;
}

describe('normaliseDomainName', () => {
  it('splits a plain .com name', () => {
    expect(normaliseDomainName('example.com')).toEqual({
      ok: true,
      value: {
        domainName: 'example.com',
        tld: 'com',
        brand: 'example',
        length: 7,
        hasHyphens: false,
        hasNumbers: false,
      },
    });
  });

  it('trims, lowercases and strips one trailing dot', () => {
    const result = normaliseDomainName('  Example.COM. \t');
    expect(result.ok && result.value.domainName).toBe('example.com');
  });

  it('strips only one trailing dot', () => {
    expect(reasonOf(normaliseDomainName('example.com..'))).toBe(
      'not a valid domain name: empty label',
    );
  });

  it('keeps a multi-label public suffix whole', () => {
    const result = normaliseDomainName('shop.co.uk');
    expect(result).toMatchObject({ ok: true, value: { tld: 'co.uk', brand: 'shop', length: 4 } });
    expect(normaliseDomainName('bikes.com.au')).toMatchObject({
      ok: true,
      value: { tld: 'com.au', brand: 'bikes' },
    });
  });

  it('flags hyphens and digits in the brand', () => {
    expect(normaliseDomainName('my-site4u.com')).toMatchObject({
      ok: true,
      value: { brand: 'my-site4u', length: 9, hasHyphens: true, hasNumbers: true },
    });
    expect(normaliseDomainName('365days.net')).toMatchObject({
      ok: true,
      value: { hasHyphens: false, hasNumbers: true },
    });
  });

  it('converts a Unicode name to punycode', () => {
    expect(normaliseDomainName('Bücher.de')).toEqual({
      ok: true,
      value: {
        domainName: 'xn--bcher-kva.de',
        tld: 'de',
        brand: 'xn--bcher-kva',
        length: 13,
        hasHyphens: false,
        hasNumbers: false,
      },
    });
  });

  it('maps full-width characters and a full-width trailing dot', () => {
    const result = normaliseDomainName('ｅｘａｍｐｌｅ。com。');
    expect(result.ok && result.value.domainName).toBe('example.com');
  });

  it('accepts an IDN name under an IDN suffix (.рф) in punycode', () => {
    expect(normaliseDomainName('xn--80ak6aa92e.xn--p1ai')).toEqual({
      ok: true,
      value: {
        domainName: 'xn--80ak6aa92e.xn--p1ai',
        tld: 'xn--p1ai',
        brand: 'xn--80ak6aa92e',
        length: 14,
        hasHyphens: false,
        hasNumbers: false,
      },
    });
  });

  it('accepts an IDN name under an IDN suffix in Unicode', () => {
    expect(normaliseDomainName('пример.рф')).toMatchObject({
      ok: true,
      value: { domainName: 'xn--e1afmkfd.xn--p1ai', tld: 'xn--p1ai', brand: 'xn--e1afmkfd' },
    });
  });

  it('does not count hyphens inside a punycode suffix', () => {
    expect(normaliseDomainName('beispiel.xn--vermgensberatung-pwb')).toEqual({
      ok: true,
      value: {
        domainName: 'beispiel.xn--vermgensberatung-pwb',
        tld: 'xn--vermgensberatung-pwb',
        brand: 'beispiel',
        length: 8,
        hasHyphens: false,
        hasNumbers: false,
      },
    });
    expect(normaliseDomainName('beispiel.vermögensberatung')).toMatchObject({
      ok: true,
      value: { tld: 'xn--vermgensberatung-pwb', hasHyphens: false },
    });
  });

  it('judges a punycode brand by its Unicode form, not by the encoding', () => {
    // 'xn--mnchen-3ya' holds the 'xn--' prefix, a delimiter hyphen and a digit, all encoding.
    expect(normaliseDomainName('xn--mnchen-3ya.de')).toMatchObject({
      ok: true,
      value: { brand: 'xn--mnchen-3ya', hasHyphens: false, hasNumbers: false },
    });
    expect(normaliseDomainName('münchen-bayern.de')).toMatchObject({
      ok: true,
      value: { brand: 'xn--mnchen-bayern-wob', hasHyphens: true, hasNumbers: false },
    });
    expect(normaliseDomainName('1я.com')).toMatchObject({
      ok: true,
      value: { brand: 'xn--1-0ub', hasHyphens: false, hasNumbers: true },
    });
  });

  it('handles wildcard and exception rules of the list', () => {
    expect(normaliseDomainName('foo.bar.ck')).toMatchObject({
      ok: true,
      value: { tld: 'bar.ck', brand: 'foo' },
    });
    expect(normaliseDomainName('www.ck')).toMatchObject({
      ok: true,
      value: { tld: 'ck', brand: 'www' },
    });
    expect(reasonOf(normaliseDomainName('bar.ck'))).toBe(
      'not a registrable domain: bar.ck is a public suffix',
    );
  });

  it('rejects a subdomain', () => {
    expect(reasonOf(normaliseDomainName('www.example.com'))).toBe(
      'not a registrable domain: www.example.com is a subdomain of example.com',
    );
    expect(reasonOf(normaliseDomainName('a.b.example.co.uk'))).toBe(
      'not a registrable domain: a.b.example.co.uk is a subdomain of example.co.uk',
    );
  });

  it('rejects a bare public suffix', () => {
    expect(reasonOf(normaliseDomainName('co.uk'))).toBe(
      'not a registrable domain: co.uk is a public suffix',
    );
    expect(reasonOf(normaliseDomainName('com'))).toBe(
      'not a valid domain name: "com" has a single label',
    );
  });

  it('rejects a suffix that is not on the Public Suffix List', () => {
    expect(reasonOf(normaliseDomainName('example.notatld'))).toBe(
      'unknown public suffix: .notatld is not on the Public Suffix List',
    );
    expect(reasonOf(normaliseDomainName('printer.local'))).toBe(
      'unknown public suffix: .local is not on the Public Suffix List',
    );
  });

  it('rejects syntax errors with a reason', () => {
    const cases: [string, string][] = [
      ['', 'not a valid domain name: empty'],
      ['   ', 'not a valid domain name: empty'],
      ['.', 'not a valid domain name: empty'],
      ['a..com', 'not a valid domain name: empty label'],
      ['.example.com', 'not a valid domain name: empty label'],
      [`${'a'.repeat(64)}.com`, 'not a valid domain name: label longer than 63 characters'],
      ['-abc.com', 'not a valid domain name: label starts or ends with a hyphen'],
      ['abc-.com', 'not a valid domain name: label starts or ends with a hyphen'],
      ['ex_ample.com', 'not a valid domain name: invalid character "_"'],
      ['exa mple.com', 'not a valid domain name: invalid character " "'],
      ['http://example.com', 'not a valid domain name: invalid character ":"'],
      ['exa mple.рф', 'not a valid domain name: not a convertible Unicode name'],
    ];
    for (const [input, reason] of cases) expect(reasonOf(normaliseDomainName(input))).toBe(reason);
  });

  it('accepts a 63-character label and rejects a name over 253 characters', () => {
    expect(normaliseDomainName(`${'a'.repeat(63)}.com`).ok).toBe(true);
    const long = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`;
    expect(long).toHaveLength(254);
    expect(reasonOf(normaliseDomainName(long))).toBe(
      'not a valid domain name: longer than 253 characters',
    );
  });

  it('rejects "--" in positions 3-4 unless it is a valid punycode label', () => {
    expect(reasonOf(normaliseDomainName('ab--cd.com'))).toBe(
      'not a valid domain name: "ab--cd" has "--" in positions 3-4 but is not valid punycode',
    );
    expect(reasonOf(normaliseDomainName('xn--zz.com'))).toBe(
      'not a valid domain name: "xn--zz" has "--" in positions 3-4 but is not valid punycode',
    );
    expect(normaliseDomainName('xn--fa-hia.de').ok).toBe(true);
    expect(normaliseDomainName('ab-cd.com').ok).toBe(true);
    expect(normaliseDomainName('a--b.com').ok).toBe(true);
  });

  it('never throws and keeps every accepted name within the rules', () => {
    const label = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
    const arbitraryName = fc.oneof(
      fc.string(),
      fc
        .tuple(label, fc.constantFrom('com', 'co.uk', 'xn--p1ai', 'notatld', 'www.example.com'))
        .map(([a, b]) => `${a}.${b}`),
    );
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(arbitraryName, (raw) => {
        const result = normaliseDomainName(raw);
        if (!result.ok) {
          rejected += 1;
          return;
        }
        accepted += 1;
        const { domainName, tld, brand, length } = result.value;
        expect(domainName).toBe(`${brand}.${tld}`);
        expect(brand).not.toContain('.');
        expect(length).toBe(brand.length);
        expect(length).toBeGreaterThanOrEqual(1);
        expect(length).toBeLessThanOrEqual(63);
        expect(domainName.length).toBeLessThanOrEqual(253);
        expect(domainName).toMatch(/^[a-z0-9.-]+$/);
      }),
      { numRuns: 300 },
    );
    // the rules above were checked on many accepted names, not on a handful or none
    expect(accepted).toBeGreaterThanOrEqual(10);
    expect(rejected).toBeGreaterThanOrEqual(10);
  });
});

describe('parseLookupDomain', () => {
  it('lowercases and splits a valid name', () => {
    expect(parseLookupDomain('Example.CO.UK')).toEqual({
      domainName: 'example.co.uk',
      tld: 'co.uk',
      brand: 'example',
      length: 7,
      hasHyphens: false,
      hasNumbers: false,
    });
  });

  it('accepts punycode', () => {
    expect(parseLookupDomain('XN--80AK6AA92E.XN--P1AI')?.domainName).toBe(
      'xn--80ak6aa92e.xn--p1ai',
    );
  });

  it('does no other conversion', () => {
    expect(parseLookupDomain(' example.com')).toBeNull();
    expect(parseLookupDomain('example.com ')).toBeNull();
    expect(parseLookupDomain('example.com.')).toBeNull();
    expect(parseLookupDomain('пример.рф')).toBeNull();
    expect(parseLookupDomain('bücher.de')).toBeNull();
    // The Kelvin sign lowercases to ASCII 'k'; it is still Unicode input.
    expect(parseLookupDomain('\u212A.com')).toBeNull();
  });

  it('returns null for anything that is not a registrable domain', () => {
    for (const segment of [
      '',
      'com',
      'co.uk',
      'www.example.com',
      'ab--cd.com',
      'a_b.com',
      'x.notatld',
    ]) {
      expect(parseLookupDomain(segment)).toBeNull();
    }
  });

  it('agrees with the feed normaliser on already-normal names', () => {
    const label = fc.stringMatching(/^[a-z0-9-]{1,20}$/);
    const suffix = fc.constantFrom('com', 'net', 'co.uk', 'xn--p1ai', 'de', 'github.io');
    let valid = 0;
    fc.assert(
      fc.property(label, suffix, (brand, tld) => {
        const name = `${brand}.${tld}`;
        const feed = normaliseDomainName(name);
        if (feed.ok) valid += 1;
        expect(parseLookupDomain(name)).toEqual(feed.ok ? feed.value : null);
      }),
      { numRuns: 300 },
    );
    // agreeing on null alone would hold for two functions that reject everything
    expect(valid).toBeGreaterThanOrEqual(30);
  });
});
