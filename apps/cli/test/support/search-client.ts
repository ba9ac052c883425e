import { listEnvelopeSchema, type Domain, type ListEnvelope } from '@domain-index/contract';
import type { RunningApi } from '@domain-index/api/test/support/start-api';
import type { Params } from './oracle';

/** One search request; a 200 body is checked against the contract's list envelope. */
export async function search(api: RunningApi, params: Params): Promise<{ status: number; body: unknown; page?: ListEnvelope; headers: Headers }> {
  const response = await api.get(`/api/v1/domains?${new URLSearchParams(params).toString()}`);
  const body: unknown = await response.json();
  if (response.status !== 200) return { status: response.status, body, headers: response.headers };
  return { status: 200, body, page: listEnvelopeSchema.parse(body), headers: response.headers };
}

/** Follows next_cursor to the end; returns every row and every page's pagination. */
export async function walk(api: RunningApi, params: Params, maxPages = 100): Promise<{ rows: Domain[]; pages: ListEnvelope[] }> {
  const rows: Domain[] = [];
  const pages: ListEnvelope[] = [];
  let cursor: string | null = null;
  do {
    const result = await search(api, cursor === null ? params : { ...params, cursor });
    if (result.page === undefined) throw new Error(`page failed: ${result.status} ${JSON.stringify(result.body)}`);
    pages.push(result.page);
    rows.push(...result.page.data);
    cursor = result.page.pagination.next_cursor;
    if (pages.length > maxPages) throw new Error('too many pages');
  } while (cursor !== null);
  return { rows, pages };
}
