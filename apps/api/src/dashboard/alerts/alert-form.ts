import { ALERT_LIMITS, createAlertSchema, DIGEST_PERIODS, updateAlertSchema, type Alert, type DigestPeriod } from '@domain-index/contract';
import type { Request } from 'express';
import type { AlertChanges, NewAlert } from '@domain-index/alerts/alert-actions';
import { ApiError } from '@domain-index/api-errors/api-error';
import { bodyError } from '../../http/error-handler';
import { html, type SafeHtml } from '@domain-index/html/html';

/** The fields of the alert form, as typed (kept when the form is shown again with an error). */
export interface AlertFormValues {
  name: string;
  query: string;
  webhook_url: string;
  /** `hourly`, `daily` or `none`. */
  email_digest: string;
  paused: boolean;
}

/** The fields a refusal can name; anything else is said above the form. */
const FIELDS = ['name', 'query', 'webhook_url', 'email_digest'] as const;
type Field = (typeof FIELDS)[number];

/** What to show about a refused form: next to a field, or above the form. */
export type FormError = { field: Field; message: string } | { field?: undefined; message: string };

const field = (req: Request, name: string) => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

/** The posted form's values. */
export function readAlertForm(req: Request): AlertFormValues {
  return {
    name: field(req, 'name'),
    query: field(req, 'query'),
    webhook_url: field(req, 'webhook_url').trim(),
    email_digest: field(req, 'email_digest') || 'none',
    paused: field(req, 'paused') === 'on',
  };
}

/** An alert's values as its edit form starts. */
export function valuesOf(alert: Alert): AlertFormValues {
  return { name: alert.name, query: alert.query, webhook_url: alert.webhook_url ?? '', email_digest: alert.email_digest ?? 'none', paused: alert.paused };
}

const digestOf = (value: string): DigestPeriod | null => ((DIGEST_PERIODS as readonly string[]).includes(value) ? (value as DigestPeriod) : null);

/**
 * A new alert from the form, checked by the API's own body schema so that the messages are the
 * API's (`name must not be empty`); the service checks the rest (the filter, the URL, the plan).
 */
export function newAlertOf(values: AlertFormValues): NewAlert {
  const body = { name: values.name, query: values.query, webhook_url: values.webhook_url === '' ? null : values.webhook_url, email_digest: digestOf(values.email_digest) };
  const parsed = createAlertSchema.safeParse(body);
  if (!parsed.success) throw bodyError(parsed.error);
  return parsed.data;
}

/**
 * The changes the edit form asks for: only the fields that differ from the alert, so the audit
 * log names what changed. The webhook URL counts as changed while the webhook is off: saving it
 * again turns it back on, as the API's PATCH does. `digests`: whether the form offered a digest.
 */
export function changesOf(alert: Alert, values: AlertFormValues, digests: boolean): AlertChanges {
  const changes: AlertChanges = {};
  if (values.name.trim() !== alert.name) changes.name = values.name;
  if (values.query.trim() !== alert.query) changes.query = values.query;
  const url = values.webhook_url === '' ? null : values.webhook_url;
  if (url !== alert.webhook_url || (url !== null && alert.webhook_state === 'disabled')) changes.webhook_url = url;
  const digest = digestOf(values.email_digest);
  if (digests && digest !== alert.email_digest) changes.email_digest = digest;
  if (values.paused !== alert.paused) changes.paused = values.paused;
  const parsed = updateAlertSchema.safeParse(changes);
  if (!parsed.success) throw bodyError(parsed.error);
  return parsed.data;
}

/** A refusal as the form shows it; anything that is not a refusal is thrown on (a fault: the error page). */
export function formErrorOf(error: unknown): FormError {
  if (!(error instanceof ApiError) || error.status >= 500) throw error;
  const named = FIELDS.find((one) => one === error.param);
  return named === undefined ? { message: error.message } : { field: named, message: error.message };
}

/** A field's error, next to it, and the attributes that tie the two for a screen reader. */
function fieldError(id: string, error: FormError | undefined, name: Field): { message: SafeHtml; attrs: SafeHtml } {
  if (error?.field !== name) return { message: html``, attrs: html`` };
  return { message: html`<span class="field-error" id="${id}-${name}-error">${error.message}</span>`, attrs: html` aria-invalid="true" aria-describedby="${id}-${name}-error"` };
}

/**
 * The alert form's fields: name, filter (a query string or a pasted URL of the search or the
 * change feed), webhook URL and, when the server can send mail, the email digest. `id` keeps
 * two forms' fields apart on one page.
 */
export function alertFields(options: { id: string; values: AlertFormValues; error?: FormError | undefined; digests: boolean; editing: boolean }): SafeHtml {
  const { id, values, error, digests } = options;
  const name = fieldError(id, error, 'name');
  const query = fieldError(id, error, 'query');
  const webhook = fieldError(id, error, 'webhook_url');
  const digest = fieldError(id, error, 'email_digest');
  const digestChoice = (value: string, label: string) =>
    values.email_digest === value ? html`<option value="${value}" selected>${label}</option>` : html`<option value="${value}">${label}</option>`;
  return html`<label
      >Name
      <input name="name" maxlength="${ALERT_LIMITS.nameMaxLength}" required value="${values.name}" placeholder="e.g. cheap .ai names"${name.attrs} />${name.message}</label
    >
    <label
      >Filter
      <textarea name="query" rows="3" maxlength="${ALERT_LIMITS.queryMaxLength}" spellcheck="false" placeholder="type=listing.added&amp;tld=ai&amp;max_price=500" aria-describedby="${id}-query-hint"${query.attrs}>${values.query}</textarea>
      <span class="hint" id="${id}-query-hint"
        >A query string of the change feed, or paste a whole URL: a search (<code>/api/v1/domains?…</code>), the change
        feed (<code>/api/v1/events?…</code>) or a browser's address with a query. Empty: every event.</span
      >${query.message}</label
    >
    <label
      >Webhook URL
      <input name="webhook_url" type="url" maxlength="${ALERT_LIMITS.urlMaxLength}" value="${values.webhook_url}" placeholder="https://example.com/hooks/domains" spellcheck="false" autocomplete="off"${webhook.attrs} />
      <span class="hint">Matches are POSTed there, signed (Standard Webhooks).${options.editing ? ' Empty: no webhook.' : ''}</span>${webhook.message}</label
    >
    ${digests
      ? html`<label
          >Email digest
          <select name="email_digest"${digest.attrs}>
            ${digestChoice('none', 'none')} ${digestChoice('hourly', 'hourly')} ${digestChoice('daily', 'daily')}
          </select>
          ${digest.message}</label
        >`
      : html`<p class="hint">Email digests are not offered: this server sends no email (its operator has not configured SMTP).</p>
          ${digest.message}`}`;
}
