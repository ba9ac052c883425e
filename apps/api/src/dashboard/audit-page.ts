import type { Router } from 'express';
import { strictRouter } from '../http/strict-router';
import { AUDIT_KINDS, auditLog } from '../accounts/audit';
import { handle, signedIn, type DashboardDeps } from './dashboard-deps';
import { html } from './html';
import { page } from './layout';

/**
 * The account's audit log: what happened to it and its keys, when and from where. An entry no
 * request caused (a key's expiry) has no address: "—".
 */
export function auditPage(deps: DashboardDeps): Router {
  const router = strictRouter();
  router.get(
    '/audit',
    handle(async (_req, res) => {
      const me = signedIn(res)!;
      const entries = await auditLog(deps.database, me.id);
      res.send(
        page({
          title: 'Audit log',
          email: me.email,
          body: html`<div class="scroll"><table>
            <thead><tr><th>Time (UTC)</th><th>Event</th><th>Key</th><th>IP</th><th>Detail</th></tr></thead>
            <tbody>${entries.map(
              (entry) =>
                html`<tr><td>${entry.at.toISOString().replace('T', ' ').slice(0, 19)}</td><td>${AUDIT_KINDS[entry.kind] ?? entry.kind}</td><td>${entry.keyId ?? ''}</td><td>${entry.ip ?? '—'}</td><td>${entry.detail ?? ''}</td></tr>`,
            )}</tbody>
          </table></div>`,
        }),
      );
    }),
  );
  return router;
}
