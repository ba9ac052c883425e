import { sql, type SQL } from '@domain-index/db';

/**
 * Over a name row aliased `r`: true while some watchlist holding the name belongs to an owner
 * that could still sign in (an account not disabled; a key neither revoked nor expired, whose
 * account, if any, is not disabled). The rule of a request's key check and of an alert's owner
 * (@domain-index/alerts/owner-state): a name only a stopped owner watches is not checked, so
 * RDAP servers are not asked on behalf of nobody. Its history waits, and resumes with the owner.
 */
export function watchedByLiveOwner(now: Date): SQL {
  const at = sql`${now.toISOString()}::timestamptz`;
  return sql`exists (
    select 1 from watchlist_domains w join watchlists l on l.id = w.watchlist_id
    where w.domain_name = r.domain_name
      and case when l.account_id is not null
        then exists (select 1 from accounts o where o.id = l.account_id and o.disabled_at is null)
        else exists (select 1 from api_keys k left join accounts o on o.id = k.account_id
                     where k.id = l.key_id and k.revoked_at is null and (k.expires_at is null or k.expires_at > ${at}) and o.disabled_at is null)
      end)`;
}
