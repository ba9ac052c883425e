import { describe, expect, it } from 'vitest';
import { currencyCode } from './currency';
import { parseMoney } from './parse-money';

describe('parseMoney', () => {
  it.each([
    ['$1,324', 1324, 'USD'],
    ['$101', 101, 'USD'],
    ['1,324.50', 1324.5, null],
    ['1324', 1324, null],
    ['  15.5  ', 15.5, null],
    ['US$ 15.50', 15.5, 'USD'],
    ['$US 99', 99, 'USD'],
    ['1,000,000 USD', 1_000_000, 'USD'],
    ['EUR 250', 250, 'EUR'],
    ['250 eur', 250, 'EUR'],
    ['€1.234', 1.234, 'EUR'],
    ['£99', 99, 'GBP'],
    ['&#163;99', 99, 'GBP'],
    ['&pound;1,200', 1200, 'GBP'],
    ['$1,324 USD', 1324, 'USD'],
    ['-5', -5, null],
  ])('reads %j as %d %s', (text, amount, currency) => {
    expect(parseMoney(text)).toEqual({ ok: true, amount, currency });
  });

  it.each(['', '-', '--', 'Make offer', 'MAKE OFFER', 'n/a', '   '])('reads %j as no amount', (text) => {
    expect(parseMoney(text)).toEqual({ ok: true, amount: null, currency: null });
  });

  it('takes JSON numbers and absent values as they are', () => {
    expect(parseMoney(42.5)).toEqual({ ok: true, amount: 42.5, currency: null });
    expect(parseMoney(null)).toEqual({ ok: true, amount: null, currency: null });
    expect(parseMoney(undefined)).toEqual({ ok: true, amount: null, currency: null });
  });

  it.each([
    ['abc', 'not a money amount "abc"'],
    ['1.234,50', 'not a money amount "1.234,50"'],
    ['12,34', 'not a money amount "12,34"'],
    ['$5 EUR', 'not a money amount "$5 EUR"'],
    ['5 bananas', 'unknown currency "bananas" in "5 bananas"'],
    ['1e5', 'not a money amount "1e5"'],
  ])('refuses %j: %s', (text, reason) => {
    expect(parseMoney(text)).toEqual({ ok: false, reason });
  });

  it('refuses values that are not text or numbers', () => {
    expect(parseMoney({ amount: 5 })).toEqual({ ok: false, reason: 'not a money amount "{\\"amount\\":5}"' });
    expect(parseMoney(Number.NaN)).toMatchObject({ ok: false });
  });
});

describe('currencyCode', () => {
  it.each([
    ['$', 'USD'],
    ['$US', 'USD'],
    ['US$', 'USD'],
    ['usd', 'USD'],
    ['EUR', 'EUR'],
    ['€', 'EUR'],
    ['&#163;', 'GBP'],
    ['&#163', 'GBP'],
    ['£', 'GBP'],
    ['CHF', 'CHF'],
    ['dollars', null],
    ['', null],
  ])('reads %j as %s', (mark, code) => {
    expect(currencyCode(mark)).toBe(code);
  });
});
