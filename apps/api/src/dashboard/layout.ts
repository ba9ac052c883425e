import { html, SafeHtml } from '@domain-index/html/html';

/** Where the dashboard lives, under the service's own origin. */
export const DASHBOARD = '/dashboard';

/** One entry of the signed-in navigation. */
export interface NavEntry {
  /** Under DASHBOARD; a signed-out visitor of it (or of anything below it) is sent to sign in. */
  path: string;
  label: string;
}

/**
 * The signed-in navigation, in order. A new page is one entry here (and its router mounted in
 * dashboard-router.ts): the header shows it, marks it current, and only a signed-in account may
 * open it.
 */
export const NAV: readonly NavEntry[] = [
  { path: '/keys', label: 'Keys' },
  { path: '/alerts', label: 'Alerts' },
  { path: '/watchlists', label: 'Watchlists' },
  { path: '/audit', label: 'Audit log' },
  { path: '/sessions', label: 'Sessions' },
  { path: '/password', label: 'Password' },
];

/** What page() draws. */
export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** The signed-in account's email: with it, the navigation and "Sign out" are shown. */
  email?: string | undefined;
  /** The NAV path of the section this page belongs to, marked as the current one. */
  section?: string | undefined;
}

/** A whole page: the same shell for every screen, readable on a phone and a desktop. */
export function page(options: PageOptions): string {
  const nav =
    options.email === undefined
      ? ''
      : html`<nav aria-label="Dashboard">
          ${NAV.map((entry) =>
            entry.path === options.section
              ? html`<a href="${DASHBOARD}${entry.path}" aria-current="page">${entry.label}</a>`
              : html`<a href="${DASHBOARD}${entry.path}">${entry.label}</a>`,
          )}
          <span class="who">${options.email}</span>
          <form method="post" action="${DASHBOARD}/sign-out">
            <button type="submit" class="quiet small">Sign out</button>
          </form>
        </nav>`;
  // prettier-ignore
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Domain Index</title>
<link rel="stylesheet" href="${DASHBOARD}/assets/dashboard.css">
<script src="${DASHBOARD}/assets/copy.js" defer></script>
</head>
<body>
<header><a class="brand" href="${DASHBOARD}/keys">Domain Index</a>${nav}</header>
<main>
<h1>${options.title}</h1>
${options.body}
</main>
</body>
</html>
`.text;
}

/** A message above a form: what went wrong and what to do. */
export function notice(text: string | undefined, kind: 'error' | 'info' = 'error'): SafeHtml {
  return text === undefined
    ? html``
    : html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
}

/**
 * The fixed message a redirect's `?notice=` code names, or undefined: the code only chooses,
 * nothing of it is shown. A Map, so that `constructor` or `__proto__` name nothing.
 */
export function noticeOf(messages: ReadonlyMap<string, string>, code: unknown): string | undefined {
  return typeof code === 'string' ? messages.get(code) : undefined;
}

/** A time as every page shows it: UTC, to the minute (or the second). */
export function utc(at: Date | null, precision: 'minute' | 'second' = 'minute'): string {
  if (at === null) return 'never';
  return `${at
    .toISOString()
    .slice(0, precision === 'minute' ? 16 : 19)
    .replace('T', ' ')} UTC`;
}

/** A count with thousands separators, as people read it. */
export function count(value: number): string {
  return value.toLocaleString('en-US');
}

/**
 * A list that is a table on a wide screen and a card per row on a phone (assets.ts): each cell
 * carries its column's name, which the card shows beside it. The roles are explicit because a
 * table whose display is changed by CSS loses them in some browsers.
 */
export function cardTable(options: {
  label: string;
  columns: readonly { title: string; className?: string }[];
  rows: readonly SafeHtml[];
  empty: string;
}): SafeHtml {
  return html`<table class="cards" role="table" aria-label="${options.label}">
    <thead role="rowgroup">
      <tr role="row">
        ${options.columns.map((column) => html`<th role="columnheader" scope="col" class="${column.className ?? ''}">${column.title}</th>`)}
      </tr>
    </thead>
    <tbody role="rowgroup">
      ${
        options.rows.length === 0
          ? html`<tr role="row">
              <td role="cell" colspan="${options.columns.length}" class="empty">
                ${options.empty}
              </td>
            </tr>`
          : options.rows
      }
    </tbody>
  </table>`;
}

/** One cell of a cardTable row: `label` is its column's title, shown beside it on a phone. */
export function cell(label: string, content: SafeHtml | string | number, className = ''): SafeHtml {
  // one element inside, so that on a phone the whole content sits beside the label; an empty
  // cell is left out of a phone's card
  const blank = content === '' || (content instanceof SafeHtml && content.text === '');
  return html`<td role="cell" data-label="${label}" class="${className}${blank ? ' blank' : ''}">
    <div>${content}</div>
  </td>`;
}
