import type { Request, Response, Router } from 'express';
import { ownKeyOrNotFound } from './own-key';
import { strictRouter } from '../http/strict-router';
import {
  listLoggedRequests,
  STATUS_FILTERS,
  type LogCursor,
  type LoggedRequest,
  type StatusFilter,
} from '../request-log/request-log-query';
import { REQUEST_LOG_DAYS } from '../request-log/request-log-recorder';
import { handle, signedIn, type DashboardDeps } from './dashboard-deps';
import { html, type SafeHtml } from '@domain-index/html/html';
import { cardTable, cell, count, DASHBOARD, page, utc } from './layout';
import { databaseOf } from '../http/request-deadline';

const PAGE_SIZE = 50;
/** A request id as the API accepts one (http/request-id.ts); anything else cannot be in the log. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const isStatusFilter = (value: unknown): value is StatusFilter =>
  typeof value === 'string' && (STATUS_FILTERS as readonly string[]).includes(value);

/** `before=<ms>.<id>`: where the next page starts. */
function cursorOf(value: unknown): LogCursor | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{1,15})\.(\d{1,18})$/.exec(value);
  return match === null ? undefined : { at: new Date(Number(match[1])), id: Number(match[2]) };
}

function statusClass(status: number): string {
  if (status === 429) return 'status-limited';
  if (status >= 500) return 'status-server';
  if (status >= 400) return 'status-client';
  return 'status-ok';
}

function requestRow(request: LoggedRequest): SafeHtml {
  const ms =
    request.durationMs < 10
      ? request.durationMs.toFixed(1)
      : String(Math.round(request.durationMs));
  return html`<tr role="row">
    ${cell('Time (UTC)', request.at.toISOString().replace('T', ' ').slice(0, 23), 'time')}
    ${cell('Request', html`<code class="wrap">${request.method} ${request.path}</code>`)}
    ${cell('Status', html`<span class="status ${statusClass(request.status)}">${request.status}</span>`)}
    ${cell('Error', request.errorCode === null ? '—' : html`<code>${request.errorCode}</code>`)}
    ${cell('Duration', `${ms} ms`, 'num')} ${cell('Rows', count(request.rows), 'num')}
    ${cell('Request id', html`<code class="wrap">${request.requestId}</code>`)}
  </tr>`;
}

/**
 * A key's request log, as Stripe's: its requests of the last 7 days, newest first, filtered by
 * status and found by request id, so a support ticket's request can be found. A GET form, so a
 * filtered page has an address of its own.
 */
export function requestsPage(deps: DashboardDeps): Router {
  const router = strictRouter();
  router.get(
    '/keys/:id/requests',
    handle(async (req: Request, res: Response) => {
      const me = signedIn(res)!;
      const now = deps.clock.now();
      const key = await ownKeyOrNotFound(deps, req, res, now);
      if (key === undefined) return;
      const status = isStatusFilter(req.query.status) ? req.query.status : undefined;
      const typedId = typeof req.query.request_id === 'string' ? req.query.request_id.trim() : '';
      const requestId = typedId === '' ? undefined : typedId;
      const before = cursorOf(req.query.before);
      // an id the API would never have accepted matches nothing: no need to ask the database
      const requests =
        requestId !== undefined && !REQUEST_ID.test(requestId)
          ? []
          : await listLoggedRequests(databaseOf(res, deps), key.id, {
              now,
              status,
              requestId,
              before,
              limit: PAGE_SIZE,
            });
      const base = `${DASHBOARD}/keys/${key.id}/requests`;
      const last = requests.at(-1);
      const next = new URLSearchParams({
        ...(status === undefined ? {} : { status }),
        ...(requestId === undefined ? {} : { request_id: requestId }),
        ...(last === undefined ? {} : { before: `${last.at.getTime()}.${last.id}` }),
      });
      const filtered = status !== undefined || requestId !== undefined;
      res.send(
        page({
          title: `Requests of ${key.name ?? key.displayPrefix}`,
          email: me.email,
          section: '/keys',
          body: html`<p>
              <code>${key.displayPrefix}…</code> ·
              <a href="${DASHBOARD}/keys/${key.id}/usage">Its usage</a> ·
              <a href="${DASHBOARD}/keys">Back to your keys</a>
            </p>
            <p>
              The requests made with this key over the last ${REQUEST_LOG_DAYS} days, newest first;
              a request shows here within a few seconds. Anything in a path or query that could be a
              key, a token or a password is shown as <code>[redacted]</code>, and headers and bodies
              are never kept.
            </p>
            <form class="filters" method="get" action="${base}">
              <label
                >Status
                <select name="status">
                  <option value="">all</option>
                  ${STATUS_FILTERS.map((one) => (one === status ? html`<option value="${one}" selected>${one}</option>` : html`<option value="${one}">${one}</option>`))}
                </select></label
              >
              <label
                >Request id
                <input
                  name="request_id"
                  value="${requestId ?? ''}"
                  placeholder="req_… from X-Request-Id"
                  autocomplete="off"
                  spellcheck="false"
              /></label>
              <button type="submit">Filter</button>
              ${filtered ? html`<a class="button" href="${base}">Clear</a>` : ''}
            </form>
            ${cardTable({
              label: 'Requests',
              columns: [
                { title: 'Time (UTC)' },
                { title: 'Request' },
                { title: 'Status' },
                { title: 'Error' },
                { title: 'Duration', className: 'num' },
                { title: 'Rows', className: 'num' },
                { title: 'Request id' },
              ],
              rows: requests.map(requestRow),
              empty: filtered
                ? 'No request matches.'
                : `No requests in the last ${REQUEST_LOG_DAYS} days.`,
            })}
            ${requests.length === PAGE_SIZE ? html`<p><a href="${base}?${next.toString()}">Older requests</a></p>` : ''}
            <p class="detail">
              Times are UTC, from ${utc(new Date(now.getTime() - REQUEST_LOG_DAYS * 86_400_000))}.
            </p>`,
        }),
      );
    }),
  );
  return router;
}
