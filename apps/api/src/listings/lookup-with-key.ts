import { contract, type Domain } from '@domain-index/contract';
import { fillPlaceholders, perDatabase, renderQuery, sql } from '@domain-index/db';
import type { Request, Response } from 'express';
import type { Clock } from '@domain-index/runtime/clock';
import type { ReadNodes } from '../replicas/read-nodes';
import { findKey, keyByHashQuery, storedKeyFromValues, type StoredKey } from '@domain-index/accounts/key-store';
import { hashApiKey } from '@domain-index/accounts/api-key';
import { DOMAIN_WIDTH, domainFromValues } from '@domain-index/listings/domain-values';
import { lookupQuery } from './lookup-query';
import { lookupNameOf } from './lookup-name';
import { readsOf } from '../http/request-deadline';
import { requestNow } from '../http/request-now';

/** What the combined statement found for a lookup, kept for the route handler. */
interface PrefetchedListing {
  domainName: string;
  domain: Domain | undefined;
}

/** The columns of keyByHashQuery (id, plan, active), before the listing's in a combined row. */
const KEY_WIDTH = 3;

/**
 * The key check and the listing of a lookup in one statement: the key's row, and, only when
 * the key is active, the listing beside it (a lateral join on the lookup query itself). A
 * lookup is the commonest request and the cheapest query, so its second round trip to the
 * database was a large share of its cost (the driver's work, a socket write and read, and
 * PostgreSQL's per-statement overhead). The key is still read on every request, in the same
 * snapshot as the listing, so a revocation applies to the very next request.
 */
const renderedKeyWithListing = perDatabase((database) =>
  renderQuery(sql`
    select k.*, l.*
    from (${keyByHashQuery(database)}) k
    left join lateral (${lookupQuery(database)}) l on k.active`),
);

/**
 * The key check `authenticate` runs for a request: for a lookup of a well-formed name, the
 * combined statement, leaving the listing for the route (see `prefetchedListing`); for anything
 * else, undefined, and the plain key lookup runs. If the combined statement fails, the plain
 * key lookup runs instead, so each failure keeps its own answer: key_lookup_unavailable when
 * keys cannot be read, query_failed from the route when listings cannot.
 */
export function keyCheckWithLookup(deps: { reads: ReadNodes; clock: Clock }) {
  const withListing = async (res: ResponseLocals, key: string, domainName: string): Promise<StoredKey | undefined> => {
    const params = { hash: hashApiKey(key), name: domainName, now: requestNow(res, deps.clock).toISOString() };
    let row: unknown[] | undefined;
    const reads = readsOf(res, deps);
    try {
      [row] = await reads.read('lookup_with_key', (database) => {
        const rendered = renderedKeyWithListing(database);
        return database.values({ sql: rendered.sql, params: fillPlaceholders(rendered.params, params), prepare: true });
      });
    } catch {
      // the plain key lookup; authenticate's checkKey asks the primary about a key not found
      return reads.read('key_lookup', (database) => findKey(database, key, requestNow(res, deps.clock)));
    }
    if (row === undefined) return undefined;
    const listing = row.slice(KEY_WIDTH, KEY_WIDTH + DOMAIN_WIDTH);
    res.locals.prefetchedListing = { domainName, domain: listing[0] === null ? undefined : domainFromValues(listing) } satisfies PrefetchedListing;
    return storedKeyFromValues(row);
  };
  return (req: KeyCheckRequest, res: ResponseLocals, key: string): Promise<StoredKey | undefined> | undefined => {
    if (req.tsRestRoute !== contract.getDomain) return undefined;
    const name = lookupNameOf(res, req.params.domain ?? '');
    return name === null ? undefined : withListing(res, key, name.domainName);
  };
}

/** What a key check may read of the request: the matched route (set by ts-rest) and its path parameters. */
export type KeyCheckRequest = Pick<Request, 'params'> & { tsRestRoute?: unknown };
/** Where a request's findings are kept for the steps after it. */
export type ResponseLocals = Pick<Response, 'locals'>;

/** The listing the key check already read for this name, if it did. */
export function prefetchedListing(res: ResponseLocals, domainName: string): PrefetchedListing | undefined {
  const prefetched = res.locals.prefetchedListing as PrefetchedListing | undefined;
  return prefetched?.domainName === domainName ? prefetched : undefined;
}
