import type { Response } from 'express';
import { signedIn } from './dashboard-deps';
import { html } from '@domain-index/html/html';
import { DASHBOARD, page } from './layout';

/**
 * The dashboard's one 404 page: for a path that is nothing, and for something of another account
 * (or a made-up id), which must look exactly the same.
 */
export function sendNotFound(res: Response): void {
  const email = signedIn(res)?.email;
  const back = email === undefined ? html`<a href="${DASHBOARD}/sign-in">Sign in</a>` : html`<a href="${DASHBOARD}/keys">Go to your keys</a>`;
  res.status(404).send(page({ title: 'Not found', email, body: html`<p>There is no such page. ${back}.</p>` }));
}
