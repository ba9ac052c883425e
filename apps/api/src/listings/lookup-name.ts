import { parseLookupDomain, type NormalisedName } from '@domain-index/indexer';
import type { Response } from 'express';

/** A path segment and what it parsed to. */
interface ParsedSegment {
  segment: string;
  name: NormalisedName | null;
}

/**
 * The name a lookup asks for, parsed once per request: the key check (which reads the listing
 * in the key's statement) and the route both need it, and splitting a name by the public
 * suffix list is one of a lookup's larger steps of ours (bench/notes/80).
 */
export function lookupNameOf(res: Pick<Response, 'locals'>, segment: string): NormalisedName | null {
  const parsed = res.locals.lookupName as ParsedSegment | undefined;
  if (parsed !== undefined && parsed.segment === segment) return parsed.name;
  const name = parseLookupDomain(segment);
  res.locals.lookupName = { segment, name } satisfies ParsedSegment;
  return name;
}
