import type { Request, Response } from 'express';
import { signedIn } from '../dashboard-deps';
import { html } from '@domain-index/html/html';
import { isFormToken } from '../key-reveal';
import { DASHBOARD, page } from '../layout';
import { SECTION } from './section';

/**
 * The one-time token a form that may make a secret carries, or undefined after answering 400
 * (a form from before this version, or hand-made): without it a second post could not be told
 * from a new one.
 */
export function postedFormToken(req: Request, res: Response, back = { section: SECTION, path: '/alerts', label: 'Back to your alerts' }): string | undefined {
  const token = (req.body as Record<string, unknown> | undefined)?.form_token;
  if (typeof token === 'string' && isFormToken(token)) return token;
  res.status(400).send(
    page({
      title: 'This form has expired',
      email: signedIn(res)!.email,
      section: back.section,
      body: html`<p>Open the page again and send its form from there. <a href="${DASHBOARD}${back.path}">${back.label}</a></p>`,
    }),
  );
  return undefined;
}
