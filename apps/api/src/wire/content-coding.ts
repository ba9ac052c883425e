/** A content coding the API compresses with. */
export type ContentCoding = 'gzip' | 'br';

/** The codings of an Accept-Encoding header, lowercased, each with whether it is acceptable (q > 0). */
function acceptedCodings(header: string): Map<string, boolean> {
  const codings = new Map<string, boolean>();
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding === undefined || coding === '') continue;
    const q = params
      .map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1])
      .find((value) => value !== undefined);
    codings.set(coding.trim(), q === undefined || Number(q) > 0);
  }
  return codings;
}

/**
 * The coding a response is sent in, for a request's Accept-Encoding: gzip whenever gzip is
 * acceptable, br when br is acceptable and gzip is not, else none. gzip comes first because every
 * HTTP client customers use decodes it, and because at the levels chosen (send-json.ts) the
 * two cost about the same CPU for a similar size (BENCHMARKS.md, "Response compression").
 */
export function negotiateCoding(header: string | undefined): ContentCoding | undefined {
  if (header === undefined || header === '') return undefined;
  const codings = acceptedCodings(header);
  if (codings.get('gzip') ?? codings.get('*') ?? false) return 'gzip';
  if (codings.get('br') ?? false) return 'br';
  return undefined;
}
