import type { Watchlist } from '@domain-index/contract';
import { createWatchlistSchema } from '@domain-index/contract';
import type { Request, Response, Router } from 'express';
import { ApiError } from '@domain-index/api-errors/api-error';
import { countWatchedNames } from '@domain-index/names/watchlist-store';
import { strictRouter } from '../../http/strict-router';
import { watchlistsOf, handle, signedIn, type DashboardDeps } from '../dashboard-deps';
import { html, type SafeHtml } from '@domain-index/html/html';
import { newFormToken } from '../key-reveal';
import { cardTable, cell, count, DASHBOARD, notice, noticeOf, page, utc } from '../layout';
import { accountActor, accountWatchPlan } from '../alerts/account-actor';
import { postedFormToken } from '../alerts/form-token';
import { postedNames, readPastedNames } from './name-list';
import { BACK, sendWatchlistPage } from './watchlist-page';
import { namesField } from './watchlist-views';
import { SECTION } from './section';
import { databaseOf } from '../../http/request-deadline';

/** Fixed messages shown after a redirect, chosen by a code so that no text is reflected. */
const NOTICES = new Map([['deleted', 'The watchlist was deleted with its names. Names no other list watches are no longer checked.']]);

interface CreateForm {
  name: string;
  domains: string;
  error?: string | undefined;
}

function watchlistRow(watchlist: Watchlist): SafeHtml {
  const path = `${DASHBOARD}/watchlists/${watchlist.id}`;
  return html`<tr role="row">
    ${cell('Watchlist', html`<a class="wrap" href="${path}"><strong>${watchlist.name}</strong></a>`)} ${cell('Names', count(watchlist.domains_count), 'num')}
    ${cell('Updated', utc(new Date(watchlist.updated)), 'time')} ${cell('Actions', html`<div class="actions"><a class="button" href="${path}">Open</a></div>`)}
  </tr>`;
}

/** The account's watchlists, its plan's watched names, and the form that makes one. */
async function listPage(deps: DashboardDeps, req: Request, res: Response, form: CreateForm & { status: number }): Promise<void> {
  const me = signedIn(res)!;
  const [lists, plan, watched] = await Promise.all([
    watchlistsOf(res, deps).list({ accountId: me.id }),
    accountWatchPlan(databaseOf(res, deps), me.planId),
    countWatchedNames(databaseOf(res, deps).db, { accountId: me.id }),
  ]);
  res.status(form.status).send(
    page({
      title: 'Watchlists',
      email: me.email,
      section: SECTION,
      body: html`${notice(noticeOf(NOTICES, req.query.notice), 'info')}
        <p>
          A watchlist is names you follow: each is checked with its registry (RDAP) for its phase and expected drop, and its listings are shown
          beside it. Plan <strong>${plan.id}</strong>: ${count(watched)} of ${count(plan.watchLimit)} names watched.
        </p>
        ${cardTable({
          label: 'Watchlists',
          columns: [{ title: 'Watchlist' }, { title: 'Names', className: 'num' }, { title: 'Updated' }, { title: 'Actions' }],
          rows: lists.map(watchlistRow),
          empty: 'No watchlists yet: create one below.',
        })}
        <p class="detail">Times are UTC. A name on several lists counts once.</p>
        <h2 id="new-watchlist">New watchlist</h2>
        ${notice(form.error)}
        <form class="stack wide" method="post" action="${DASHBOARD}/watchlists" aria-labelledby="new-watchlist">
          <input type="hidden" name="form_token" value="${newFormToken()}" />
          <label for="new-name">Name</label>
          <input id="new-name" name="name" required maxlength="100" value="${form.name}" />
          ${namesField('new', form.domains)}
          <button type="submit">Create watchlist</button>
        </form>`,
    }),
  );
}

/** The watchlists page and its create form (post, then the new list's page). */
export function watchlistsListPage(deps: DashboardDeps): Router {
  const router = strictRouter();
  router.get(
    '/watchlists',
    handle(async (req, res) => {
      await listPage(deps, req, res, { name: '', domains: '', status: 200 });
    }),
  );
  router.post(
    '/watchlists',
    handle(async (req, res) => {
      if (postedFormToken(req, res, BACK) === undefined) return;
      const me = signedIn(res)!;
      const rawName = (req.body as Record<string, unknown>).name;
      const form: CreateForm = { name: typeof rawName === 'string' ? rawName : '', domains: postedNames(req) };
      const pasted = readPastedNames(form.domains);
      if (!pasted.ok) return listPage(deps, req, res, { ...form, error: pasted.message, status: 400 });
      const body = createWatchlistSchema.safeParse({ name: form.name, domains: pasted.names });
      if (!body.success) return listPage(deps, req, res, { ...form, error: `Name ${body.error.issues[0]?.message ?? 'is not valid'}.`, status: 400 });
      try {
        const plan = await accountWatchPlan(databaseOf(res, deps), me.planId);
        const created = await watchlistsOf(res, deps).create(accountActor(req, res), plan, body.data);
        if (created.refused.length === 0) {
          res.redirect(303, `${DASHBOARD}/watchlists/${created.id}?notice=created`);
          return;
        }
        // the refused names are shown now, by line: a redirect could not carry them without reflecting them
        req.params.id = created.id;
        await sendWatchlistPage(deps, req, res, {
          outcome: { added: created.domains_count, alreadyWatched: pasted.names.length - created.refused.length - created.domains_count, refused: created.refused, lines: pasted.lines },
        });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        await listPage(deps, req, res, { ...form, error: error.message, status: error.status });
      }
    }),
  );
  return router;
}
