/** What a user name or password in a stored webhook URL is shown as. */
export const HIDDEN_CREDENTIAL = '***';

/** Whether a webhook URL carries a user name or a password (`https://user:password@host/`). */
export function hasCredentials(url: URL): boolean {
  return url.username !== '' || url.password !== '';
}

/**
 * A stored webhook URL as it is shown (the API, the dashboard, the operator's commands): a user
 * name and password, which alerts saved before they were refused may carry, replaced by `***`
 * each, so the URL still reads as one with credentials but never shows them. Anything else is
 * shown as stored.
 */
export function shownWebhookUrl(stored: string): string {
  let url: URL;
  try {
    url = new URL(stored);
  } catch {
    return stored;
  }
  if (!hasCredentials(url)) return stored;
  const userinfo = url.password === '' ? HIDDEN_CREDENTIAL : `${HIDDEN_CREDENTIAL}:${HIDDEN_CREDENTIAL}`;
  return `${url.protocol}//${userinfo}@${url.host}${url.pathname}${url.search}${url.hash}`;
}
