/** What became of a request, as the dashboard splits a key's usage. */
export type Outcome = 'ok' | 'clientErrors' | 'rateLimited' | 'serverErrors';

/** The outcomes in the order the dashboard shows them. */
export const OUTCOMES: readonly Outcome[] = ['ok', 'clientErrors', 'rateLimited', 'serverErrors'];

/** How the dashboard names each outcome. */
export const OUTCOME_LABELS: Readonly<Record<Outcome, string>> = {
  ok: '2xx',
  clientErrors: '4xx',
  rateLimited: '429',
  serverErrors: '5xx',
};

/** The outcome of a response status: 429 apart from the other 4xx, anything below 400 as 2xx. */
export function outcomeOf(status: number): Outcome {
  if (status >= 500) return 'serverErrors';
  if (status === 429) return 'rateLimited';
  if (status >= 400) return 'clientErrors';
  return 'ok';
}
