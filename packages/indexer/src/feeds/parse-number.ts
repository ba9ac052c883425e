import { failed, shown, type Parsed } from './parsed';

const PLAIN = /^-?\d+(?:\.\d+)?$/;
/** US thousands separators: `1,324` and `1,324.50`; groups of exactly three digits. */
const GROUPED = /^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

/** The number a written amount stands for, or null when it is not one (thousands separators allowed). */
export function decimalOf(text: string): number | null {
  if (PLAIN.test(text)) return Number(text);
  if (GROUPED.test(text)) return Number(text.replaceAll(',', ''));
  return null;
}

/**
 * A number as marketplaces write counts and scores: a JSON number, or decimal text with
 * optional US thousands separators (`1,234`). Empty is null; anything else is refused.
 * Ranges are checked later, by the feed format's own validation.
 */
export function parseNumber(value: unknown): Parsed<number> {
  if (value === undefined || value === null) return { ok: true, value: null };
  if (typeof value === 'number') return Number.isFinite(value) ? { ok: true, value } : failed(`not a number ${shown(value)}`);
  if (typeof value !== 'string') return failed(`not a number ${shown(value)}`);
  const text = value.trim();
  if (text === '') return { ok: true, value: null };
  const number = decimalOf(text);
  return number === null ? failed(`not a number ${shown(value)}`) : { ok: true, value: number };
}
