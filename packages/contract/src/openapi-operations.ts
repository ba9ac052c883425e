import type { ApiErrorBody, ErrorCode } from './errors';
import type { Contract } from './contract';
import { WEBHOOK_URL_REFUSED } from './alerts';
import {
  ALERT_ID_EXAMPLE,
  WATCHLIST_ID_EXAMPLE,
  CREATE_ALERT_EXAMPLE,
  DELIVERY_CURSOR_EXAMPLE,
  DELIVERY_ID_EXAMPLE,
  UPDATE_ALERT_EXAMPLE,
} from './openapi-examples';

/** The groups of operations on /docs, with what each is for. */
export const OPENAPI_TAGS = {
  Domains: 'Search the listed domains and look one up.',
  Exports: 'Every listing a search matches, streamed in one response as CSV or JSON lines.',
  Events: 'What changed: listings added, updated, removed, ending soon and ended, in commit order, filtered like a search.',
  Alerts: 'Saved change-feed queries delivered by signed webhooks and email digests: the one resource a customer writes.',
  Names: 'Everything known of one name, listed or not: its listings on every marketplace, its registration from RDAP, its history.',
  Watchlists: 'Names an owner follows: checked by RDAP on a schedule that follows their life, their changes delivered as name.* events.',
  Statistics: 'Index-wide counts: how many listings, by status and by marketplace.',
} as const;

/** What the document says about one operation beyond the contract. */
export interface OperationDocs {
  tag: keyof typeof OPENAPI_TAGS;
  /** The one title of the success response (200, 201 or 202) on /docs. */
  ok: string;
  /**
   * The error codes only this operation (and others that list them) answers, beyond those every
   * operation can answer: a code listed by no operation is documented under every one.
   */
  errors?: readonly ErrorCode[];
  /** Examples of errors as this operation words them, in place of the general ones. */
  errorExamples?: { readonly [Code in ErrorCode]?: ApiErrorBody & { code: Code } };
  /** Examples of this operation's own parameters; others come from openapi-examples.ts. */
  parameterExamples?: Readonly<Record<string, string | number | boolean>>;
  /**
   * A success body that is not JSON (an export): its media types, each with an example, in place
   * of the JSON schema's; and headers of that response beyond the common ones.
   */
  okMedia?: Readonly<Record<string, { example: string; description: string }>>;
  okHeaders?: Readonly<Record<string, { description: string; example: string | number }>>;
  /** Parameters every query of the operation needs: each parameter's example is valid with these. */
  requiredQuery?: Readonly<Record<string, string>>;
  /** The query of the curl sample, as sent. */
  sampleQuery?: Readonly<Record<string, string>>;
  /** The JSON body of the curl sample and the request body's example; the TypeScript sample sends the same. */
  sampleBody?: Readonly<Record<string, unknown>>;
  /**
   * The same call with `@domain-index/client`, given the server's address: code a customer can
   * paste into an ES module (JavaScript or TypeScript); a test runs each one.
   */
  client(serverUrl: string): string;
}

const newClient = (serverUrl: string) =>
  `const client = new DomainIndex({ apiKey: process.env.DOMAIN_INDEX_API_KEY, baseUrl: '${serverUrl}' });`;

/**
 * One entry per operation of the contract: a new endpoint does not compile until it has its
 * tag and its code samples here.
 */
export const OPENAPI_OPERATIONS: { readonly [OperationId in keyof Contract]: OperationDocs } = {
  searchDomains: {
    tag: 'Domains',
    ok: 'A page of matching listings',
    sampleQuery: { search: 'cloud', status: 'all', limit: '10' },
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

// One page
const page = await client.domains.list({ search: 'cloud', status: 'all', limit: 10 });
console.log(page.total.value, page.data.map((domain) => domain.domain_name));

// Every row across pages: follows next_cursor until has_more is false
for await (const domain of client.domains.list({ search: 'cloud', status: 'all' }, { maxItems: 500 })) {
  console.log(domain.domain_name, domain.current_bid);
}
`,
  },
  exportDomains: {
    tag: 'Exports',
    ok: 'Every matching listing, streamed',
    errors: ['export_too_large'],
    parameterExamples: { format: 'csv', summary: true },
    requiredQuery: { format: 'jsonl' },
    errorExamples: {
      invalid_parameter: { code: 'invalid_parameter', message: 'format must be one of csv, jsonl', param: 'format' },
      rate_limited: {
        code: 'rate_limited',
        message: 'this export would stream 48210 rows, which costs 49 requests (one per started 1000 rows); this key has 12 left in the current window; retry after 1260 s, or narrow the filters',
      },
    },
    okMedia: {
      'text/csv': {
        description: 'format=csv: a header row of the 35 domain fields in order, then one row per listing; RFC 4180 quoting, CRLF line ends, UTF-8 without BOM, an empty field for null',
        example: 'domain_name,tld,status,source,length,...\r\ncloudkitchen.com,com,auction,bidhaus,12,...\r\n',
      },
      'application/x-ndjson': {
        description: 'format=jsonl: one domain object a line, the bytes a search answers it with; with summary=true a last line {"object":"export_summary","rows":N}; a failure part-way ends the body with an error envelope on a line of its own',
        example: '{"domain_name":"cloudkitchen.com","tld":"com",...}\n{"object":"export_summary","rows":1}\n',
      },
    },
    okHeaders: {
      'Content-Disposition': { description: 'Always an attachment, named for the format and the time of the snapshot', example: 'attachment; filename="domains-20261121T120000Z.csv"' },
      'X-Total-Count': { description: 'HEAD only: the exact number of rows a GET with these parameters would stream now, counted in one snapshot', example: 48210 },
      'X-Export-Cost': { description: 'Requests of the hourly allowance this export took: one per started 1,000 rows', example: 49 },
    },
    sampleQuery: { format: 'csv', status: 'all', tld: 'ai', max_price: '500' },
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

${newClient(serverUrl)}

// A CSV file of every .ai name under $500, streamed straight to disk
const body = await client.domains.export({ status: 'all', tld: 'ai', max_price: 500, format: 'csv' });
await pipeline(Readable.fromWeb(body), createWriteStream('ai-under-500.csv'));

// Or every row as an object, parsed from JSON lines as it arrives
let rows = 0;
for await (const domain of client.domains.exportRows({ status: 'all', tld: 'ai', max_price: 500 })) {
  rows += 1;
  if (rows <= 3) console.log(domain.domain_name, domain.current_bid);
}
console.log(\`\${rows} rows\`);
`,
  },
  getDomain: {
    tag: 'Domains',
    ok: 'The listing of the domain',
    errors: ['invalid_domain', 'domain_not_found'],
    client: (serverUrl) => `import { DomainIndex, NotFoundError } from '@domain-index/client';

${newClient(serverUrl)}

try {
  const domain = await client.domains.get('cloudkitchen.com');
  console.log(domain.status, domain.current_bid, domain.marketplace_url);
} catch (error) {
  if (error instanceof NotFoundError) console.log('not listed right now');
  else throw error;
}
`,
  },
  listEvents: {
    tag: 'Events',
    ok: 'A page of events and the cursor to resume from',
    errors: ['cursor_expired', 'watchlist_not_found'],
    parameterExamples: { after: 'now', type: 'listing.added,listing.updated', limit: 100, watchlist: WATCHLIST_ID_EXAMPLE },
    sampleQuery: { type: 'listing.added', tld: 'ai', max_price: '500', no_hyphens: 'true' },
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

// New .ai names under $500 without hyphens, from the oldest event kept; store the cursor of
// each page to resume there after a restart, without gaps or repeats
let cursor = 'now';
for await (const page of client.events.pages({ type: ['listing.added'], tld: 'ai', max_price: 500, no_hyphens: true }, { maxPages: 3 })) {
  for (const event of page.data) console.log(event.type, event.data.object?.domain_name);
  cursor = page.next_cursor;
}

// Or keep polling until stopped: every 30 s when caught up, backing off on failures;
// it resolves with the cursor to resume from
const stop = new AbortController();
setTimeout(() => stop.abort(), 1_000);
cursor = await client.events.watch({ after: cursor, type: ['listing.updated'] }, {
  signal: stop.signal,
  intervalMs: 30_000,
  onEvents: (events, nextCursor) => {
    for (const event of events) console.log(event.data.previous_attributes, event.data.object?.current_bid);
    cursor = nextCursor;
  },
});
console.log('stopped; resume with after =', cursor);
`,
  },
  createAlert: {
    tag: 'Alerts',
    ok: 'The alert, with its signing secret (shown once)',
    errors: ['alert_limit_reached'],
    errorExamples: {
      invalid_parameter: {
        code: 'invalid_parameter',
        message: WEBHOOK_URL_REFUSED,
        param: 'webhook_url',
      },
    },
    sampleBody: CREATE_ALERT_EXAMPLE,
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const alert = await client.alerts.create({
  name: '${CREATE_ALERT_EXAMPLE.name}',
  query: '${CREATE_ALERT_EXAMPLE.query}',
  webhook_url: '${String(CREATE_ALERT_EXAMPLE.webhook_url)}',
});
console.log(alert.id, alert.webhook_secret); // store the secret: it is not shown again
`,
  },
  listAlerts: {
    tag: 'Alerts',
    ok: 'Your alerts',
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

for (const alert of await client.alerts.list()) console.log(alert.id, alert.name, alert.webhook_state, alert.last_delivery?.status);
`,
  },
  getAlert: {
    tag: 'Alerts',
    ok: 'The alert',
    errors: ['alert_not_found'],
    client: (serverUrl) => `import { DomainIndex, NotFoundError } from '@domain-index/client';

${newClient(serverUrl)}

try {
  const alert = await client.alerts.get('${ALERT_ID_EXAMPLE}');
  console.log(alert.query, alert.paused, alert.webhook_state);
} catch (error) {
  if (error instanceof NotFoundError) console.log('no such alert of yours'); // error.code: alert_not_found
  else throw error;
}
`,
  },
  updateAlert: {
    tag: 'Alerts',
    ok: 'The alert as changed',
    errors: ['alert_not_found'],
    sampleBody: UPDATE_ALERT_EXAMPLE,
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const alert = await client.alerts.update('${ALERT_ID_EXAMPLE}', { paused: true });
console.log(alert.paused);
`,
  },
  deleteAlert: {
    tag: 'Alerts',
    ok: 'The deleted alert',
    errors: ['alert_not_found'],
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const { deleted } = await client.alerts.delete('${ALERT_ID_EXAMPLE}');
console.log(deleted);
`,
  },
  testAlert: {
    tag: 'Alerts',
    ok: 'The test message, queued',
    errors: ['alert_not_found'],
    errorExamples: {
      invalid_parameter: { code: 'invalid_parameter', message: 'the alert has no webhook to test; set a webhook_url first', param: 'id' },
    },
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const message = await client.alerts.test('${ALERT_ID_EXAMPLE}');
console.log(message.id); // the webhook-id your receiver will see
`,
  },
  listDeliveries: {
    tag: 'Alerts',
    ok: 'A page of attempts, newest first',
    errors: ['alert_not_found'],
    errorExamples: {
      invalid_parameter: { code: 'invalid_parameter', message: "after is malformed; pass a page's next_cursor back unchanged", param: 'after' },
    },
    parameterExamples: { after: DELIVERY_CURSOR_EXAMPLE, limit: 20 },
    sampleQuery: { limit: '20' },
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

// One page (await it), or every attempt of the last 7 days (iterate it with for await)
const attempts = await client.alerts.deliveries('${ALERT_ID_EXAMPLE}', { limit: 20 });
for (const attempt of attempts.data) console.log(attempt.at, attempt.http_status ?? attempt.error, attempt.duration_ms);
`,
  },
  resendDelivery: {
    tag: 'Alerts',
    ok: 'The message, queued again',
    errors: ['alert_not_found', 'delivery_not_found'],
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const message = await client.alerts.resend('${ALERT_ID_EXAMPLE}', '${DELIVERY_ID_EXAMPLE}');
console.log(message.status); // pending: it is sent again now, with the same webhook-id
`,
  },
  rotateAlertSecret: {
    tag: 'Alerts',
    ok: 'The alert, with its new signing secret (shown once)',
    errors: ['alert_not_found'],
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const { webhook_secret } = await client.alerts.rotateSecret('${ALERT_ID_EXAMPLE}');
console.log(webhook_secret); // both secrets sign for the next 24 hours
`,
  },
  getName: {
    tag: 'Names',
    ok: "The name: its listings, its registration, its history",
    errors: ['invalid_domain', 'refresh_limit_reached'],
    parameterExamples: { refresh: true, domain: 'cloudhosting.com' },
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const name = await client.names.get('cloudhosting.com');
console.log(name.listings.length, 'listings', name.registration?.phase ?? 'never checked', name.registration?.expected_drop_at);
`,
  },
  createWatchlist: {
    tag: 'Watchlists',
    ok: 'The watchlist, with the names it refused',
    errors: ['watch_limit_reached'],
    sampleBody: { name: 'Drops to catch', domains: ['cloudhosting.com', 'xn--caf-dma.com'] },
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const watchlist = await client.watchlists.create({ name: 'Drops to catch', domains: ['cloudhosting.com', 'xn--caf-dma.com'] });
console.log(watchlist.id, watchlist.domains_count, watchlist.refused);
`,
  },
  listWatchlists: {
    tag: 'Watchlists',
    ok: 'Your watchlists',
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

for (const watchlist of await client.watchlists.list()) console.log(watchlist.id, watchlist.name, watchlist.domains_count);
`,
  },
  getWatchlist: {
    tag: 'Watchlists',
    parameterExamples: { id: WATCHLIST_ID_EXAMPLE, domain: 'cloudhosting.com' },
    ok: 'The watchlist',
    errors: ['watchlist_not_found'],
    client: (serverUrl) => `import { DomainIndex, NotFoundError } from '@domain-index/client';

${newClient(serverUrl)}

try {
  const watchlist = await client.watchlists.get('${WATCHLIST_ID_EXAMPLE}');
  console.log(watchlist.name, watchlist.domains_count);
} catch (error) {
  if (error instanceof NotFoundError) console.log('no such watchlist of yours'); // error.code: watchlist_not_found
  else throw error;
}
`,
  },
  updateWatchlist: {
    tag: 'Watchlists',
    parameterExamples: { id: WATCHLIST_ID_EXAMPLE, domain: 'cloudhosting.com' },
    ok: 'The watchlist as renamed',
    errors: ['watchlist_not_found'],
    sampleBody: { name: 'Drops to catch this week' },
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const watchlist = await client.watchlists.update('${WATCHLIST_ID_EXAMPLE}', { name: 'Drops to catch this week' });
console.log(watchlist.name);
`,
  },
  deleteWatchlist: {
    tag: 'Watchlists',
    parameterExamples: { id: WATCHLIST_ID_EXAMPLE, domain: 'cloudhosting.com' },
    ok: 'The deleted watchlist',
    errors: ['watchlist_not_found', 'watchlist_in_use'],
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const { deleted } = await client.watchlists.delete('${WATCHLIST_ID_EXAMPLE}');
console.log(deleted);
`,
  },
  addWatchedDomains: {
    tag: 'Watchlists',
    parameterExamples: { id: WATCHLIST_ID_EXAMPLE, domain: 'cloudhosting.com' },
    ok: 'What was added, and what was refused',
    errors: ['watchlist_not_found', 'watch_limit_reached'],
    sampleBody: { domains: ['cloudhosting.com', 'not a name', 'brandable.io'] },
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const change = await client.watchlists.addDomains('${WATCHLIST_ID_EXAMPLE}', ['cloudhosting.com', 'not a name', 'brandable.io']);
console.log(change.added, change.already_watched, change.refused); // refused: [{ index: 1, domain: 'not a name', message: ... }]
`,
  },
  listWatchedDomains: {
    tag: 'Watchlists',
    ok: 'A page of watched names',
    errors: ['watchlist_not_found'],
    parameterExamples: { id: WATCHLIST_ID_EXAMPLE, limit: 50, after: 'Y2xvdWRob3N0aW5nLmNvbQ' },
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

for await (const name of client.watchlists.domains('${WATCHLIST_ID_EXAMPLE}')) {
  console.log(name.domain_name, name.phase, name.listings_count, name.lowest_price, name.next_check_at);
}
`,
  },
  removeWatchedDomain: {
    tag: 'Watchlists',
    parameterExamples: { id: WATCHLIST_ID_EXAMPLE, domain: 'cloudhosting.com' },
    ok: 'The name, no longer watched',
    errors: ['watchlist_not_found', 'domain_not_found'],
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const { deleted } = await client.watchlists.removeDomain('${WATCHLIST_ID_EXAMPLE}', 'cloudhosting.com');
console.log(deleted);
`,
  },
  getStats: {
    tag: 'Statistics',
    ok: 'The index statistics',
    client: (serverUrl) => `import { DomainIndex } from '@domain-index/client';

${newClient(serverUrl)}

const stats = await client.stats();
console.log(\`\${stats.live} live auctions of \${stats.total} listings, as of \${stats.as_of}\`);
console.log(stats.by_source);
`,
  },
};
