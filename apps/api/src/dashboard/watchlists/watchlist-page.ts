import { updateWatchlistSchema, type Watchlist } from '@domain-index/contract';
import type { Request, Response, Router } from 'express';
import { ApiError } from '@domain-index/api-errors/api-error';
import { strictRouter } from '../../http/strict-router';
import { handle, signedIn, watchlistsOf, type DashboardDeps } from '../dashboard-deps';
import { html } from '@domain-index/html/html';
import { newFormToken } from '../key-reveal';
import { cardTable, count, DASHBOARD, notice, noticeOf, page, utc } from '../layout';
import { sendNotFound } from '../not-found';
import { accountActor, accountWatchPlan } from '../alerts/account-actor';
import { postedFormToken } from '../alerts/form-token';
import { namesOfFile, readUploadedList, UPLOAD_BYTES } from './name-file';
import { NAMES_PER_FORM, postedNames, readPastedNames, type PastedNames } from './name-list';
import { namesField, outcomeNotice, watchedRow, type NamesOutcome } from './watchlist-views';
import { SECTION } from './section';
import { databaseOf } from '../../http/request-deadline';

/** Names on one page of a watchlist. */
const PAGE_SIZE = 50;

/** Fixed messages shown after a redirect, chosen by a code so that no text is reflected. */
const NOTICES = new Map([
  ['created', 'The watchlist was created. Its names are checked within minutes.'],
  ['renamed', 'The watchlist was renamed.'],
  ['removed', 'The name was removed from this watchlist.'],
  ['unchanged', 'Nothing was added.'],
]);

const listPath = (id: string) => `${DASHBOARD}/watchlists/${id}`;

/** Where an expired form sends people back to. */
export const BACK = { section: SECTION, path: '/watchlists', label: 'Back to your watchlists' };

/** What the page shows beside its names after a form: a refusal, or what adding names did. */
interface PageOptions {
  status?: number;
  refusal?: string | undefined;
  outcome?: NamesOutcome | undefined;
  /** The add form's text drawn again after a refusal. */
  domains?: string;
  rename?: string;
}

/** The signed-in account's watchlist of the path, or undefined after the 404 page (another account's is as absent as a made-up id). */
async function ownWatchlist(deps: DashboardDeps, req: Request, res: Response): Promise<Watchlist | undefined> {
  try {
    return await watchlistsOf(res, deps).get({ accountId: signedIn(res)!.id }, req.params.id ?? '');
  } catch (error) {
    if (error instanceof ApiError && error.code === 'watchlist_not_found') {
      sendNotFound(res);
      return undefined;
    }
    throw error;
  }
}

/** The message of a refusal (an ApiError below 500); anything else is a fault for the error page. */
function refusalOf(error: unknown): ApiError {
  if (error instanceof ApiError && error.status < 500) return error;
  throw error;
}

/**
 * A watchlist's page: its names in name order, 50 a page by cursor (`?after=`), each with where
 * it stands and a remove button; the forms that add names, rename it and delete it.
 */
export async function sendWatchlistPage(deps: DashboardDeps, req: Request, res: Response, options: PageOptions = {}): Promise<void> {
  const me = signedIn(res)!;
  const watchlist = await ownWatchlist(deps, req, res);
  if (watchlist === undefined) return;
  const afterParam = req.query.after;
  const after = typeof afterParam === 'string' ? afterParam : undefined;
  let names;
  try {
    names = await watchlistsOf(res, deps).domains({ accountId: me.id }, watchlist.id, { after, limit: PAGE_SIZE });
  } catch (error) {
    // a made-up or damaged page link is as absent as a made-up watchlist
    if (!(error instanceof ApiError && error.code === 'invalid_parameter')) throw error;
    sendNotFound(res);
    return;
  }
  const path = listPath(watchlist.id);
  res.status(options.status ?? 200).send(
    page({
      title: watchlist.name,
      email: me.email,
      section: SECTION,
      body: html`<p><a href="${DASHBOARD}/watchlists">All watchlists</a></p>
        ${notice(options.refusal)} ${options.outcome === undefined ? '' : outcomeNotice(options.outcome)} ${notice(noticeOf(NOTICES, req.query.notice), 'info')}
        <dl class="facts">
          <dt>Names</dt>
          <dd>${count(watchlist.domains_count)}</dd>
          <dt>Created</dt>
          <dd>${utc(new Date(watchlist.created))}<span class="detail">changed ${utc(new Date(watchlist.updated))}</span></dd>
        </dl>
        <div class="actions toolbar"><a class="button danger" href="${path}/delete">Delete watchlist</a></div>
        <h2>Names</h2>
        ${cardTable({
          label: 'Names',
          columns: [
            { title: 'Name' },
            { title: 'Phase' },
            { title: 'Expected drop' },
            { title: 'Listings now', className: 'num' },
            { title: 'Lowest price', className: 'num' },
            { title: 'Next check' },
            { title: 'Actions' },
          ],
          rows: names.items.map((domain) => watchedRow(watchlist.id, domain)),
          empty: after === undefined ? 'No names yet: add some below.' : 'No more names.',
        })}
        <p class="actions">
          ${after === undefined ? '' : html`<a class="button" href="${path}">First names</a>`}
          ${names.nextCursor === null ? '' : html`<a class="button" href="${path}?after=${names.nextCursor}">Next names</a>`}
        </p>
        <p class="detail">Times are UTC. A phase is what the registry (RDAP) last said; a new name shows "not checked yet" until its first check.</p>
        <h2 id="add-names">Add names</h2>
        <form class="stack wide" method="post" action="${path}/add" aria-labelledby="add-names">
          <input type="hidden" name="form_token" value="${newFormToken()}" />
          ${namesField('add', options.domains ?? '')}
          <button type="submit">Add names</button>
        </form>
        <h3 id="upload-names">Or upload a file</h3>
        <form class="stack wide" method="post" action="${path}/upload" enctype="multipart/form-data" aria-labelledby="upload-names">
          <input type="hidden" name="form_token" value="${newFormToken()}" />
          <label for="upload-file">File of names</label>
          <input id="upload-file" type="file" name="file" accept=".txt,.csv,text/plain,text/csv" required aria-describedby="upload-file-hint" />
          <span class="hint" id="upload-file-hint"
            >A text file of one name a line, or a CSV whose first column holds the names (a header row such as <code>domain_name</code> is
            skipped, so the API's CSV export uploads as it is); at most ${count(NAMES_PER_FORM)} names and ${UPLOAD_BYTES / 1024} kB a file.</span
          >
          <button type="submit">Upload and add</button>
        </form>
        <h2 id="rename">Rename</h2>
        <form class="stack" method="post" action="${path}/rename" aria-labelledby="rename">
          <input type="hidden" name="form_token" value="${newFormToken()}" />
          <label for="rename-name">Name</label>
          <input id="rename-name" name="name" required maxlength="100" value="${options.rename ?? watchlist.name}" />
          <button type="submit">Rename</button>
        </form>`,
    }),
  );
}

/** A watchlist's page and its actions, each a form that posts and then redirects with a fixed notice. */
export function watchlistPage(deps: DashboardDeps): Router {
  const router = strictRouter();
  const onOwn = (run: (watchlist: Watchlist, req: Request, res: Response) => Promise<void> | void) =>
    handle(async (req, res) => {
      const watchlist = await ownWatchlist(deps, req, res);
      if (watchlist !== undefined) await run(watchlist, req, res);
    });
  const field = (req: Request, name: string) => {
    const value = (req.body as Record<string, unknown> | undefined)?.[name];
    return typeof value === 'string' ? value : '';
  };

  router.get(
    '/watchlists/:id',
    handle(async (req, res) => {
      await sendWatchlistPage(deps, req, res);
    }),
  );

  /** Adds the names read from a form (pasted or uploaded) and shows what it did; `domains` is drawn again after a refusal. */
  const addNames = async (watchlist: Watchlist, req: Request, res: Response, read: PastedNames, domains: string) => {
    if (!read.ok) return sendWatchlistPage(deps, req, res, { status: 400, refusal: read.message, domains });
    if (read.names.length === 0) return sendWatchlistPage(deps, req, res, { status: 400, refusal: 'Paste at least one name to add.', domains });
    try {
      const plan = await accountWatchPlan(databaseOf(res, deps), signedIn(res)!.planId);
      const added = await watchlistsOf(res, deps).addDomains(accountActor(req, res), plan, watchlist.id, read.names);
      await sendWatchlistPage(deps, req, res, { outcome: { added: added.added, alreadyWatched: added.already_watched, refused: added.refused, lines: read.lines } });
    } catch (error) {
      const refused = refusalOf(error);
      await sendWatchlistPage(deps, req, res, { status: refused.status, refusal: refused.message, domains });
    }
  };

  router.post(
    '/watchlists/:id/add',
    onOwn(async (watchlist, req, res) => {
      if (postedFormToken(req, res, BACK) === undefined) return;
      const domains = postedNames(req);
      await addNames(watchlist, req, res, readPastedNames(domains), domains);
    }),
  );

  // a file of names (multipart/form-data, read by name-file.ts); its lines are the refusals' lines
  router.post(
    '/watchlists/:id/upload',
    onOwn(async (watchlist, req, res) => {
      const upload = await readUploadedList(req);
      req.body = { form_token: upload.formToken };
      if (postedFormToken(req, res, BACK) === undefined) return;
      if (!upload.ok) return sendWatchlistPage(deps, req, res, { status: upload.status, refusal: upload.message });
      const read = namesOfFile(upload.text);
      if (read.ok && read.names.length === 0) return sendWatchlistPage(deps, req, res, { status: 400, refusal: 'The file holds no names: one a line, or a CSV whose first column holds them.' });
      await addNames(watchlist, req, res, read, '');
    }),
  );

  router.post(
    '/watchlists/:id/remove',
    onOwn(async (watchlist, req, res) => {
      if (postedFormToken(req, res, BACK) === undefined) return;
      try {
        await watchlistsOf(res, deps).removeDomain(accountActor(req, res), watchlist.id, field(req, 'domain'));
      } catch (error) {
        const refused = refusalOf(error);
        return sendWatchlistPage(deps, req, res, { status: refused.status, refusal: refused.message });
      }
      res.redirect(303, `${listPath(watchlist.id)}?notice=removed`);
    }),
  );

  router.post(
    '/watchlists/:id/rename',
    onOwn(async (watchlist, req, res) => {
      if (postedFormToken(req, res, BACK) === undefined) return;
      const name = field(req, 'name');
      const body = updateWatchlistSchema.safeParse({ name });
      if (!body.success) return sendWatchlistPage(deps, req, res, { status: 400, refusal: `Name ${body.error.issues[0]?.message ?? 'is not valid'}.`, rename: name });
      await watchlistsOf(res, deps).rename(accountActor(req, res), watchlist.id, body.data.name);
      res.redirect(303, `${listPath(watchlist.id)}?notice=renamed`);
    }),
  );

  router.get(
    '/watchlists/:id/delete',
    onOwn((watchlist, _req, res) => {
      res.send(
        page({
          title: 'Delete this watchlist?',
          email: signedIn(res)!.email,
          section: SECTION,
          body: html`<p>
              <strong>${watchlist.name}</strong> and its ${count(watchlist.domains_count)} names are deleted; names no other list of yours watches
              are no longer checked. This cannot be undone.
            </p>
            <form method="post" action="${listPath(watchlist.id)}/delete">
              <input type="hidden" name="form_token" value="${newFormToken()}" />
              <button type="submit" class="danger">Delete</button>
              <a href="${listPath(watchlist.id)}">Cancel</a>
            </form>`,
        }),
      );
    }),
  );
  router.post(
    '/watchlists/:id/delete',
    onOwn(async (watchlist, req, res) => {
      if (postedFormToken(req, res, BACK) === undefined) return;
      try {
        await watchlistsOf(res, deps).delete(accountActor(req, res), watchlist.id);
      } catch (error) {
        const refused = refusalOf(error);
        return sendWatchlistPage(deps, req, res, { status: refused.status, refusal: refused.message });
      }
      res.redirect(303, `${DASHBOARD}/watchlists?notice=deleted`);
    }),
  );
  return router;
}
