// What a customer's code looks like on the types openapi-typescript generates from the
// document (dist/openapi-types.ts): the named schemas are usable types. `tsc` must accept this
// file, including its expected errors (the generated types are as strict as the contract).
import type { components, operations } from '../../dist/openapi-types';

type Domain = components['schemas']['Domain'];
type ListEnvelope = components['schemas']['ListEnvelope'];
type ApiError = components['schemas']['Error'];
type SearchQuery = NonNullable<operations['searchDomains']['parameters']['query']>;

/** A one-line summary of a listing, as a customer's report would print it. */
export function describeListing(domain: Domain): string {
  const price = domain.current_bid ?? domain.buy_now_price;
  const ends =
    domain.auction_end_time === null
      ? 'no end'
      : `ends ${new Date(domain.auction_end_time).toISOString()}`;
  return `${domain.domain_name} (${domain.status}, ${domain.source}): ${price === null ? 'no price' : `$${price}`}, ${ends}`;
}

/** The rows of a page and whether to ask for more. */
export function rowsOf(page: ListEnvelope): { rows: Domain[]; next: string | null } {
  return { rows: page.data, next: page.pagination.has_more ? page.pagination.next_cursor : null };
}

export const query: SearchQuery = {
  search: 'cloud',
  status: 'dropping',
  max_length: 8,
  no_hyphens: true,
  sort: 'length',
};

export const code = (error: ApiError): string =>
  error.param === undefined ? error.code : `${error.code} (${error.param})`;

// @ts-expect-error status is a closed set
export const badStatus: Domain['status'] = 'sold';
// @ts-expect-error no such error code
export const badCode: ApiError['code'] = 'teapot';
// @ts-expect-error every field is present: a Domain without updated_at is not one
export const partial: Domain = { domain_name: 'cloudkitchen.com' };

// The alerts: a request body and the answers, by the names of the document
type CreateAlert = components['schemas']['CreateAlert'];
type AlertWithSecret = components['schemas']['AlertWithSecret'];
type CreateAlertBody = operations['createAlert']['requestBody']['content']['application/json'];
type Created = operations['createAlert']['responses'][201]['content']['application/json'];
type Queued = operations['testAlert']['responses'][202]['content']['application/json'];

export const newAlert: CreateAlertBody = {
  name: 'Cheap .ai names',
  query: 'type=listing.added&tld=ai&max_price=500',
  webhook_url: 'https://hooks.example.com/domain-index',
};
export const sameType: CreateAlert = newAlert;
export const secretOf = (alert: Created): string | null => alert.webhook_secret;
export const shown: AlertWithSecret['webhook_state'] = 'disabled';
export const messageOf = (queued: Queued): string => `${queued.kind} ${queued.id} ${queued.status}`;
// @ts-expect-error an alert needs a name
export const unnamed: CreateAlert = { query: 'tld=ai' };
// @ts-expect-error the digest is hourly or daily
export const weekly: CreateAlert = { name: 'n', query: 'tld=ai', email_digest: 'weekly' };
// @ts-expect-error a create answers 201, not 200
export type NotOk = operations['createAlert']['responses'][200];
