// An alert's life through openapi-fetch and the types openapi-typescript generates from the
// document: created (201, with its secret), read, paused, tested (202), its attempts listed,
// and deleted. Prints one JSON line of what each step answered.
//   DOMAIN_INDEX_BASE_URL=... DOMAIN_INDEX_API_KEY=dix_... WEBHOOK_URL=https://... tsx alert-roundtrip.ts
import createClient from 'openapi-fetch';
import type { paths } from '../../dist/openapi-types';

const baseUrl = process.env.DOMAIN_INDEX_BASE_URL ?? 'http://127.0.0.1:3000';
const apiKey = process.env.DOMAIN_INDEX_API_KEY;
const webhookUrl = process.env.WEBHOOK_URL;
if (apiKey === undefined || webhookUrl === undefined) throw new Error('set DOMAIN_INDEX_API_KEY and WEBHOOK_URL');

const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });
const failed = (step: string, status: number, error: { error: { code: string; message: string } }) =>
  new Error(`${step}: HTTP ${status} ${error.error.code}: ${error.error.message}`);

const created = await client.POST('/api/v1/alerts', {
  body: { name: 'Cheap .ai names', query: 'type=listing.added&tld=ai&max_price=500', webhook_url: webhookUrl },
});
if (created.error !== undefined) throw failed('create', created.response.status, created.error);
const id = created.data.id;
const path = { params: { path: { id } } };

const read = await client.GET('/api/v1/alerts/{id}', path);
if (read.error !== undefined) throw failed('get', read.response.status, read.error);
const paused = await client.PATCH('/api/v1/alerts/{id}', { ...path, body: { paused: true } });
if (paused.error !== undefined) throw failed('update', paused.response.status, paused.error);
const tested = await client.POST('/api/v1/alerts/{id}/test', path);
if (tested.error !== undefined) throw failed('test', tested.response.status, tested.error);
const attempts = await client.GET('/api/v1/alerts/{id}/deliveries', { params: { path: { id }, query: { limit: 20 } } });
if (attempts.error !== undefined) throw failed('deliveries', attempts.response.status, attempts.error);
const deleted = await client.DELETE('/api/v1/alerts/{id}', path);
if (deleted.error !== undefined) throw failed('delete', deleted.response.status, deleted.error);
const gone = await client.GET('/api/v1/alerts/{id}', path);

console.log(
  JSON.stringify({
    created: { status: created.response.status, id, secret: created.data.webhook_secret?.slice(0, 'whsec_'.length) ?? null },
    read: { status: read.response.status, name: read.data.name, query: read.data.query },
    paused: { status: paused.response.status, paused: paused.data.paused },
    tested: { status: tested.response.status, kind: tested.data.kind, state: tested.data.status },
    attempts: { status: attempts.response.status, hasMore: attempts.data.pagination.has_more },
    deleted: { status: deleted.response.status, deleted: deleted.data.deleted },
    gone: { status: gone.response.status, code: gone.error?.error.code },
  }),
);
