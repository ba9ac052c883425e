import { describe, expect, it } from 'vitest';
import { parseBoolean } from './parse-boolean';
import { parseDomainName } from './parse-domain';
import { parseNumber } from './parse-number';

describe('parseNumber', () => {
  it.each([
    ['12', 12],
    ['12.5', 12.5],
    ['1,234', 1234],
    ['1,234,567.25', 1234567.25],
    [' 7 ', 7],
    ['-3', -3],
    [42, 42],
  ])('reads %j as %d', (value, number) => {
    expect(parseNumber(value)).toEqual({ ok: true, value: number });
  });

  it.each(['', '  ', null, undefined])('reads %j as absent', (value) => {
    expect(parseNumber(value)).toEqual({ ok: true, value: null });
  });

  it.each(['12,34', '1e3', 'ten', '0x10', '1.2.3', true])('refuses %j', (value) => {
    expect(parseNumber(value)).toMatchObject({ ok: false, reason: expect.stringMatching(/^not a number/) as unknown });
  });
});

describe('parseBoolean', () => {
  it.each([
    ['true', true],
    ['TRUE', true],
    ['yes', true],
    ['Y', true],
    ['1', true],
    [1, true],
    [true, true],
    ['false', false],
    ['No', false],
    ['f', false],
    ['0', false],
    [0, false],
    [false, false],
  ])('reads %j as %s', (value, yes) => {
    expect(parseBoolean(value)).toEqual({ ok: true, value: yes });
  });

  it('reads empty as absent and refuses anything else', () => {
    expect(parseBoolean('')).toEqual({ ok: true, value: null });
    expect(parseBoolean(null)).toEqual({ ok: true, value: null });
    expect(parseBoolean('maybe')).toEqual({ ok: false, reason: 'not a yes/no value "maybe"' });
    expect(parseBoolean(2)).toEqual({ ok: false, reason: 'not a yes/no value "2"' });
  });
});

describe('parseDomainName', () => {
  it.each([
    ['EXAMPLE.COM', 'example.com'],
    ['  Cloud-Shop.io  ', 'cloud-shop.io'],
    ['example.com.', 'example.com'],
    ['MÜNCHEN.de', 'xn--mnchen-3ya.de'],
    ['müller.de', 'xn--mller-kva.de'],
    ['ＥＸＡＭＰＬＥ．ＣＯＭ', 'example.com'],
  ])('reads %j as %s', (value, name) => {
    expect(parseDomainName(value)).toEqual({ ok: true, value: name });
  });

  it('reads empty as absent and refuses what cannot be a name', () => {
    expect(parseDomainName('')).toEqual({ ok: true, value: null });
    expect(parseDomainName(12)).toEqual({ ok: false, reason: 'not a domain name "12"' });
    expect(parseDomainName('exa mple\u0000.com')).toEqual({ ok: true, value: 'exa mple\u0000.com' });
    expect(parseDomainName('xn--\u00e9.com')).toMatchObject({ ok: false });
  });
});
