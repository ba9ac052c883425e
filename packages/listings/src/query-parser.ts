/**
 * Parses a query string into plain values, or an array when a name repeats (which validation
 * rejects). Replaces Express's `qs` parser, whose nested syntax (`a[b]=1`) the API does not have.
 */
export function parseQueryString(queryString: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(queryString)) {
    const seen = query[name];
    if (seen === undefined) query[name] = value;
    else query[name] = Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}
