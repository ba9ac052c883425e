import { html, type SafeHtml } from './html';

/** Where the dashboard lives, under the service's own origin. */
export const DASHBOARD = '/dashboard';

/** A whole page: the same shell for every screen, readable on a phone and a desktop. */
export function page(options: { title: string; body: SafeHtml; email?: string | undefined }): string {
  const nav =
    options.email === undefined
      ? ''
      : html`<nav aria-label="Dashboard">
          <a href="${DASHBOARD}/keys">Keys</a>
          <a href="${DASHBOARD}/sessions">Sessions</a>
          <a href="${DASHBOARD}/password">Password</a>
          <a href="${DASHBOARD}/audit">Audit log</a>
          <span class="who">${options.email}</span>
          <form method="post" action="${DASHBOARD}/sign-out"><button type="submit">Sign out</button></form>
        </nav>`;
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
  return text === undefined ? html`` : html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
}

/**
 * The fixed message a redirect's `?notice=` code names, or undefined: the code only chooses,
 * nothing of it is shown. A Map, so that `constructor` or `__proto__` name nothing.
 */
export function noticeOf(messages: ReadonlyMap<string, string>, code: unknown): string | undefined {
  return typeof code === 'string' ? messages.get(code) : undefined;
}
