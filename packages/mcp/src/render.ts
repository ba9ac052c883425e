import type { Alert, AlertWithSecret, Domain, Event, Stats } from '@domain-index/client';

// Text renderings of the tools' answers, for hosts that show a model the text content only:
// the facts a model needs to answer and to call again, one line per item.

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 });
const count = new Intl.NumberFormat('en-US');

/** `2026-12-29 06:06 UTC` */
const time = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** One listing in a line: name, status, marketplace, price and bids, buy-now price, end, score. */
export function domainLine(domain: Domain): string {
  const parts = [`${domain.domain_name}: ${domain.status} on ${domain.source}`];
  if (domain.current_bid !== null) {
    parts.push(domain.bid_count === null || domain.bid_count === 0 ? `asking ${usd.format(domain.current_bid)} (no bids)` : `bid ${usd.format(domain.current_bid)} (${domain.bid_count} bids)`);
  }
  if (domain.buy_now_price !== null) parts.push(`buy now ${usd.format(domain.buy_now_price)}`);
  if (domain.auction_end_time !== null) parts.push(`ends ${time(domain.auction_end_time)}`);
  parts.push(`index_score ${domain.index_score}`);
  return parts.join(', ');
}

/** Every field of a listing that has a value, one per line. */
export function domainDetails(domain: Domain): string {
  return Object.entries(domain)
    .filter(([, value]) => value !== null)
    .map(([field, value]) => `${field}: ${String(value)}`)
    .join('\n');
}

/** A search page: how many match, the rows, and how to go on. */
export function searchText(page: { domains: Domain[]; total: { value: number; accuracy: string }; next_cursor: string | null }): string {
  const total = `${count.format(page.total.value)} listings match${page.total.accuracy === 'exact' ? '' : ' (an estimate)'}`;
  const rows = page.domains.length === 0 ? 'none on this page.' : `${page.domains.length} on this page:\n${page.domains.map(domainLine).join('\n')}`;
  const next =
    page.next_cursor === null
      ? 'This is the last page.'
      : `More: call search_domains again with the same arguments and cursor "${page.next_cursor}".`;
  return `${total}; ${rows}\n${next}`;
}

/** Index statistics in a few lines. */
export function statsText(stats: Omit<Stats, 'meta'>): string {
  const byStatus = Object.entries(stats.by_status).map(([status, n]) => `${status} ${count.format(n)}`).join(', ');
  const bySource = Object.entries(stats.by_source).map(([source, n]) => `${source} ${count.format(n)}`).join(', ');
  return [
    `As of ${time(stats.as_of)}: ${count.format(stats.total)} listings indexed, ${count.format(stats.live)} running auctions (a search without status), ${count.format(stats.retrievable)} not ended (status=all).`,
    `By status: ${byStatus}.`,
    `By marketplace: ${bySource === '' ? 'none' : bySource}.`,
  ].join('\n');
}

/** One event in a line. */
function eventLine(event: Event): string {
  const created = time(event.created);
  if (event.type === 'source.loaded') return `${event.id} ${created} source.loaded: ${event.source} loaded ${event.data.listings_loaded ?? 0} listings`;
  const listing = event.data.object === null ? event.source : domainLine(event.data.object);
  const changed = event.data.previous_attributes === null ? '' : ` (changed: ${Object.keys(event.data.previous_attributes).join(', ')})`;
  return `${event.id} ${created} ${event.type}${changed}: ${listing}`;
}

/** A change-feed page: the events and where to resume. */
export function eventsText(page: { events: Event[]; next_cursor: string; has_more: boolean }): string {
  const events = page.events.length === 0 ? 'No events on this page.' : `${page.events.length} events, oldest first:\n${page.events.map(eventLine).join('\n')}`;
  const next = page.has_more
    ? `More now: call list_events with after "${page.next_cursor}".`
    : `Caught up. Later, call list_events with after "${page.next_cursor}" for what changes next.`;
  return `${events}\n${next}`;
}

/** One alert in a line. */
function alertLine(alert: Alert): string {
  const channels = [alert.webhook_url === null ? undefined : `webhook ${alert.webhook_state}`, alert.email_digest === null ? undefined : `${alert.email_digest} email (${alert.email_digest_status ?? 'none'})`].filter((c) => c !== undefined);
  return `${alert.id} "${alert.name}"${alert.paused ? ' (paused)' : ''}: ${alert.query}; ${channels.join(', ') || 'no channel'}`;
}

/** The caller's alerts. */
export function alertsText(alerts: readonly Alert[]): string {
  return alerts.length === 0 ? 'No alerts.' : `${alerts.length} alerts, newest first:\n${alerts.map(alertLine).join('\n')}`;
}

/** A created alert, and the secret shown this once. */
export function createdAlertText(alert: AlertWithSecret): string {
  const secret = alert.webhook_secret === null ? '' : `\nWebhook signing secret (shown only now; give it to the user to store): ${alert.webhook_secret}`;
  return `Created ${alertLine(alert)}${secret}`;
}
