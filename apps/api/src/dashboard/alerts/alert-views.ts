import type { Alert } from '@domain-index/contract';
import type { DeliveryAttempt } from '@domain-index/alerts/delivery-log';
import { html, type SafeHtml } from '@domain-index/html/html';
import { utc } from '../layout';

/** How much of a receiver's answer the log shows: its first bytes, enough to recognise it. */
const RESPONSE_SHOWN = 200;

/**
 * An alert's state in a word and why: webhook off (and the reason it was turned off) comes
 * first, since nothing reaches the receiver until its owner acts; then paused; else active.
 */
export function alertState(alert: Alert): { label: string; className: string; why: string } {
  if (alert.webhook_state === 'disabled') {
    return { label: 'webhook off', className: 'status-revoked', why: `Turned off: ${alert.webhook_disabled_reason ?? 'it kept failing'}.` };
  }
  if (alert.paused) return { label: 'paused', className: 'status-rotated', why: 'Nothing is delivered until it is resumed; matches meanwhile are not sent later.' };
  // by email only, and the email not mailed: nothing is delivered at all
  if (alert.webhook_url === null && alert.email_digest_status === 'pending_confirmation') return { label: 'waiting', className: 'status-rotated', why: 'Nothing is mailed until your address is confirmed.' };
  if (alert.webhook_url === null && alert.email_digest_status === 'unsubscribed') return { label: 'not mailed', className: 'status-revoked', why: 'Your address unsubscribed; confirm it again to resume.' };
  return { label: 'active', className: 'status-active', why: 'Delivers every match.' };
}

/** The state as the list and the alert's page show it: a word, and why under it. */
export function alertStateCell(alert: Alert): SafeHtml {
  const state = alertState(alert);
  return html`<span class="status ${state.className}">${state.label}</span><span class="detail">${state.why}</span>`;
}

/** The filter as its parameters, each one `name=value`; no parameter matches every event. */
export function filterSummary(queryString: string): SafeHtml {
  const params = [...new URLSearchParams(queryString)];
  if (params.length === 0) return html`<span class="detail">every event</span>`;
  return html`<span class="filter">${params.map(([name, value]) => html`<code>${name}=${value}</code> `)}</span>`;
}

/** Where the matches go: the webhook's host (the whole URL on the alert's page) and the digest. */
export function channelsSummary(alert: Alert, full = false): SafeHtml {
  const parts: SafeHtml[] = [];
  if (alert.webhook_url !== null) {
    const shown = full ? alert.webhook_url : new URL(alert.webhook_url).host;
    parts.push(html`<span class="wrap">Webhook <code>${shown}</code></span>`);
  }
  if (alert.email_digest !== null) parts.push(html`<span>Email, ${alert.email_digest}</span>${digestStateDetail(alert)}`);
  return html`${parts.map((part, i) => (i === 0 ? part : html`<br />${part}`))}`;
}

/** Why a digest is not being mailed, under the channel: nothing when its address is confirmed. */
function digestStateDetail(alert: Alert): SafeHtml | string {
  if (alert.email_digest_status === 'pending_confirmation') return html`<span class="detail"><span class="status status-rotated">waiting for confirmation</span>: nothing is mailed until you click the link sent to your address</span>`;
  if (alert.email_digest_status === 'unsubscribed') return html`<span class="detail"><span class="status status-revoked">unsubscribed</span>: your address used an unsubscribe link, so nothing is mailed until it is confirmed again</span>`;
  return '';
}

const DELIVERY_WORDS: Record<NonNullable<Alert['last_delivery']>['status'], string> = {
  delivered: 'delivered',
  pending: 'being sent',
  failed: 'failed: every retry was used',
  cancelled: 'cancelled',
};

/** The latest webhook message: when, and how it went. */
export function lastDeliverySummary(alert: Alert): SafeHtml {
  const last = alert.last_delivery;
  if (last === null) return html`<span class="detail">${alert.webhook_url === null ? 'by email only' : 'nothing sent yet'}</span>`;
  const className = last.status === 'delivered' ? 'status-active' : last.status === 'pending' ? 'status-rotated' : 'status-revoked';
  const attempts = last.attempts === 1 ? '1 attempt' : `${last.attempts} attempts`;
  // a cancelled message says why (the webhook removed or changed, the alert paused, its owner stopped)
  const words = last.status === 'cancelled' && last.cancelled_reason !== null ? `${DELIVERY_WORDS.cancelled}: ${last.cancelled_reason}` : DELIVERY_WORDS[last.status];
  return html`${utc(new Date(last.created))}<span class="detail"><span class="status ${className}">${words}</span>, ${attempts}</span>`;
}

/** What an attempt got: the HTTP status, or why nothing came back. */
export function attemptOutcome(attempt: DeliveryAttempt): SafeHtml {
  if (attempt.httpStatus === null) return html`<span class="status status-revoked">no answer</span><span class="detail wrap">${attempt.error ?? ''}</span>`;
  const ok = attempt.httpStatus >= 200 && attempt.httpStatus < 300;
  return html`<span class="status ${ok ? 'status-active' : 'status-revoked'}">HTTP ${attempt.httpStatus}</span>${attempt.error === null ? '' : html`<span class="detail wrap">${attempt.error}</span>`}`;
}

/** What a message carried: a test, or how many events. */
export function attemptMessage(attempt: DeliveryAttempt): SafeHtml {
  const what = attempt.kind === 'test' ? 'test' : attempt.eventIds.length === 1 ? '1 event' : `${attempt.eventIds.length} events`;
  return html`${what}<code class="detail wrap">${attempt.deliveryId}</code>`;
}

/** The first bytes of the receiver's answer, as text (escaped like everything shown). */
export function attemptResponse(attempt: DeliveryAttempt): SafeHtml | string {
  if (attempt.response === null || attempt.response === '') return '';
  const shown = attempt.response.length > RESPONSE_SHOWN ? `${attempt.response.slice(0, RESPONSE_SHOWN)}…` : attempt.response;
  return html`<code class="wrap">${shown}</code>`;
}
