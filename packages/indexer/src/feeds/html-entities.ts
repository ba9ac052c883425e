const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  pound: '£',
  euro: '€',
  yen: '¥',
  cent: '¢',
};

// The semicolon of a numeric reference is optional, as in HTML: a `;`-separated feed that
// writes `&#163;` unescaped has had it cut off by the split.
const ENTITY = /&(?:#(\d{1,7});?|#[xX]([0-9a-fA-F]{1,6});?|([a-zA-Z]{2,8});)/g;

function fromCodePoint(code: number): string | null {
  return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : null;
}

/**
 * Decodes HTML character references (`&#163;`, `&#xa3;`, `&pound;`, `&amp;`), as some
 * marketplaces write currency signs in text feeds. Unknown names are left as they are.
 */
export function decodeHtmlEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (decimal !== undefined) return fromCodePoint(Number(decimal)) ?? whole;
    if (hex !== undefined) return fromCodePoint(Number.parseInt(hex, 16)) ?? whole;
    return NAMED[name!.toLowerCase()] ?? whole;
  });
}

/** Longest reference decodeHtmlEntities reads (`&#1114111;`): the tail a streaming decoder holds back. */
export const LONGEST_ENTITY = 10;
