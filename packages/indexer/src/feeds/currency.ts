import { decodeHtmlEntities } from './html-entities';

/** Currency signs and marks as marketplaces write them, to ISO 4217 codes. `$` alone is US dollars. */
const MARKS: Readonly<Record<string, string>> = {
  '$': 'USD',
  'US$': 'USD',
  '$US': 'USD',
  'U$S': 'USD',
  '€': 'EUR',
  '£': 'GBP',
  'C$': 'CAD',
  'CA$': 'CAD',
  'A$': 'AUD',
  'AU$': 'AUD',
  '¥': 'JPY',
  '₹': 'INR',
};

const CODE = /^[A-Z]{3}$/;

/**
 * The ISO 4217 code a currency mark stands for: a sign (`$`, `€`, `£`), a marketplace's own
 * mark (`$US`), an HTML reference (`&#163;`), or a three-letter code in any case. Null when
 * the mark is none of these.
 */
export function currencyCode(mark: string): string | null {
  const text = decodeHtmlEntities(mark.trim());
  const upper = text.toUpperCase();
  return MARKS[upper] ?? MARKS[text] ?? (CODE.test(upper) ? upper : null);
}
