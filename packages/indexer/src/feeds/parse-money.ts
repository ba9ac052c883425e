import { currencyCode } from './currency';
import { decodeHtmlEntities } from './html-entities';
import { decimalOf } from './parse-number';
import { failed, shown } from './parsed';

/** A money value: its amount (`null` when none is given) and the currency it names, if any. */
export type MoneyParsed =
  | { ok: true; amount: number | null; currency: string | null }
  | { ok: false; reason: string };

/** Written by marketplaces where there is no price. */
const NO_AMOUNT = new Set(['', '-', '--', 'make offer', 'n/a']);

/** An optional mark, the amount, an optional mark: `$1,324`, `1324 EUR`, `US$ 15.50`, `&#163;99`. */
const MONEY = /^([^\d\s.,-]*)\s*(-?\d[\d,]*(?:\.\d+)?)\s*([^\d\s.,]*)$/u;

/**
 * Reads a money value as marketplaces write it: a JSON number, or text with a currency sign or
 * code before or after the amount and US thousands separators (`$1,324`, `1,324.50 USD`).
 * `Make offer`, `-`, `--` and empty are no amount. The currency is what the text names (null
 * when it names none); converting it to US dollars is the caller's part.
 */
export function parseMoney(value: unknown): MoneyParsed {
  if (value === undefined || value === null) return { ok: true, amount: null, currency: null };
  if (typeof value === 'number') {
    return Number.isFinite(value) ? { ok: true, amount: value, currency: null } : failed(`not a money amount ${shown(value)}`);
  }
  if (typeof value !== 'string') return failed(`not a money amount ${shown(value)}`);
  const text = decodeHtmlEntities(value).trim();
  if (NO_AMOUNT.has(text.toLowerCase())) return { ok: true, amount: null, currency: null };
  const match = MONEY.exec(text);
  const amount = match === null ? null : decimalOf(match[2]!);
  if (match === null || amount === null) return failed(`not a money amount ${shown(value)}`);
  const [, before = '', , after = ''] = match;
  if (before !== '' && after !== '') {
    const [a, b] = [currencyCode(before), currencyCode(after)];
    if (a === null || a !== b) return failed(`not a money amount ${shown(value)}`);
  }
  const mark = before !== '' ? before : after;
  if (mark === '') return { ok: true, amount, currency: null };
  const currency = currencyCode(mark);
  return currency === null ? failed(`unknown currency ${shown(mark)} in ${shown(value)}`) : { ok: true, amount, currency };
}
