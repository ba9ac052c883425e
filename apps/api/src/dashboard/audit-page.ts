import type { Router } from 'express';
import { strictRouter } from '../http/strict-router';
import { AUDIT_KINDS, auditLog, type AuditEntry } from '@domain-index/audit/audit';
import { handle, signedIn, type DashboardDeps } from './dashboard-deps';
import { html, type SafeHtml } from '@domain-index/html/html';
import { cardTable, cell, page } from './layout';
import { databaseOf } from '../http/request-deadline';

/** A key as the keys page names it: its name and prefix (never an internal id). */
function keyOf(entry: AuditEntry): SafeHtml | string {
  if (entry.key === null) return entry.keyId === null ? '' : '(a key of another account)';
  return html`${entry.key.name ?? '(no name)'} <code>${entry.key.displayPrefix}…</code>`;
}

/**
 * The account's audit log: what happened to it and its keys, when and from where. An entry no
 * request caused (a key's expiry) has no address: "—". A table on a wide screen, a card per
 * entry on a phone.
 */
export function auditPage(deps: DashboardDeps): Router {
  const router = strictRouter();
  router.get(
    '/audit',
    handle(async (_req, res) => {
      const me = signedIn(res)!;
      const entries = await auditLog(databaseOf(res, deps), me.id);
      res.send(
        page({
          title: 'Audit log',
          email: me.email,
          section: '/audit',
          body: html`<p>
              The newest 100 things that happened to your account and its keys. Times are UTC.
            </p>
            ${cardTable({
              label: 'Audit log',
              columns: [
                { title: 'Time (UTC)' },
                { title: 'Event' },
                { title: 'Key' },
                { title: 'IP' },
                { title: 'Detail' },
              ],
              rows: entries.map(
                (entry) =>
                  html`<tr role="row">
                    ${cell('Time (UTC)', entry.at.toISOString().replace('T', ' ').slice(0, 19), 'time')}${cell('Event', AUDIT_KINDS[entry.kind] ?? entry.kind)}${cell('Key', keyOf(entry), 'wrap')}${cell('IP', entry.ip ?? '—', 'wrap')}${cell('Detail', entry.detail ?? '', 'wrap')}
                  </tr>`,
              ),
              empty: 'Nothing yet.',
            })}`,
        }),
      );
    }),
  );
  return router;
}
