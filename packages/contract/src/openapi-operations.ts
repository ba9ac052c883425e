import type { Contract } from './contract';

/** The groups of operations on /docs, with what each is for. */
export const OPENAPI_TAGS = {
  Domains: 'Search the listed domains and look one up.',
  Events: 'What changed: listings added, updated, removed, ending soon and ended, in commit order, filtered like a search.',
  Statistics: 'Index-wide counts: how many listings, by status and by marketplace.',
} as const;

/** What the document says about one operation beyond the contract. */
export interface OperationDocs {
  tag: keyof typeof OPENAPI_TAGS;
  /** The one title of the 200 response on /docs. */
  ok: string;
  /** Examples of this operation's own parameters; others come from openapi-examples.ts. */
  parameterExamples?: Readonly<Record<string, string | number | boolean>>;
  /** The query of the curl sample, as sent. */
  sampleQuery?: Readonly<Record<string, string>>;
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
  getDomain: {
    tag: 'Domains',
    ok: 'The listing of the domain',
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
    parameterExamples: { after: 'now', type: 'listing.added,listing.updated', limit: 100 },
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
