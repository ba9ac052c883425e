import { parseLookupDomain } from '@domain-index/indexer';

/** A name as the names and watchlists endpoints take it, or why it is not one. */
export type NameInput = { domainName: string } | { refused: string };

/**
 * A domain name in ASCII (punycode), lowercased and never converted: a Unicode name is refused
 * with a message that says how to send it, since two Unicode spellings can map to one name.
 */
export function parseNameInput(raw: string): NameInput {
  const shown = raw.slice(0, 80);
  if (/[\u0080-\u{10ffff}]/u.test(raw)) return { refused: `${shown} is not in ASCII: send the name in punycode (xn--...), as registries list it` };
  const name = parseLookupDomain(raw.trim());
  return name === null ? { refused: `${shown.toLowerCase()} is not a valid domain name` } : { domainName: name.domainName };
}
