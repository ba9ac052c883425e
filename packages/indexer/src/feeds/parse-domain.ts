import { domainToASCII } from 'node:url';
import { failed, shown, type Parsed } from './parsed';

/**
 * A domain name as the index keys it: trimmed, lower-cased, one trailing dot dropped, and an
 * internationalised name converted to punycode (UTS #46, as browsers do): `MÜNCHEN.de` is
 * `xn--mnchen-3ya.de`. Whether it is a registrable name is checked later, by normalisation.
 */
export function parseDomainName(value: unknown): Parsed<string> {
  if (value === undefined || value === null) return { ok: true, value: null };
  if (typeof value !== 'string') return failed(`not a domain name ${shown(value)}`);
  const text = value.trim();
  if (text === '') return { ok: true, value: null };
  // eslint-disable-next-line no-control-regex -- ASCII is exactly what needs no conversion
  const ascii = /^[\x00-\x7f]*$/.test(text) ? text.toLowerCase() : domainToASCII(text);
  const name = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  return name === '' ? failed(`not a domain name ${shown(value)}`) : { ok: true, value: name };
}
