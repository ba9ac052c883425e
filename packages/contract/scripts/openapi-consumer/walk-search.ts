// Walks a search to its end with openapi-fetch and the types openapi-typescript generates from
// the document: what a customer who brings their own generator does. Prints one JSON line:
// the pages, the names in order and the total the first page announced.
//   DOMAIN_INDEX_BASE_URL=http://127.0.0.1:3000 DOMAIN_INDEX_API_KEY=dix_... tsx walk-search.ts [search]
import createClient from 'openapi-fetch';
import type { components, paths } from '../../dist/openapi-types';

type Domain = components['schemas']['Domain'];

const baseUrl = process.env.DOMAIN_INDEX_BASE_URL ?? 'http://127.0.0.1:3000';
const apiKey = process.env.DOMAIN_INDEX_API_KEY;
if (apiKey === undefined) throw new Error('set DOMAIN_INDEX_API_KEY');
const search = process.argv[2];

const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });

const names: string[] = [];
let pages = 0;
let total: number | undefined;
let cursor: string | undefined;
for (;;) {
  const { data, error, response } = await client.GET('/api/v1/domains', {
    params: {
      query: {
        status: 'all',
        limit: 10,
        ...(search === undefined ? {} : { search }),
        ...(cursor === undefined ? {} : { cursor }),
      },
    },
  });
  if (error !== undefined)
    throw new Error(`HTTP ${response.status} ${error.error.code}: ${error.error.message}`);
  pages += 1;
  total ??= data.total.value;
  names.push(...data.data.map((domain: Domain) => domain.domain_name));
  if (!data.pagination.has_more || data.pagination.next_cursor === null) break;
  cursor = data.pagination.next_cursor;
}
console.log(JSON.stringify({ pages, total, names }));
