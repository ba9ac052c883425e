import type { Contract } from './contract';

/** The groups of operations on /docs, with what each is for. */
export const OPENAPI_TAGS = {
  Domains: 'Search the listed domains and look one up.',
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
