import type { Request, Response, Router } from 'express';
import type { AccountKey } from '@domain-index/accounts/account-keys';
import { ownKeyOrNotFound } from './own-key';
import { strictRouter } from '../http/strict-router';
import { OUTCOME_LABELS, OUTCOMES } from '../usage/outcome';
import { USAGE_RANGES, usageOver, type UsageBucket, type UsageRange } from '../usage/usage-query';
import { handle, signedIn, type DashboardDeps } from './dashboard-deps';
import { html, type SafeHtml } from '@domain-index/html/html';
import { planLimit } from './keys-pages';
import { count, DASHBOARD, page } from './layout';
import { usageChart } from './usage-chart';
import { databaseOf } from '../http/request-deadline';

const RANGES = Object.keys(USAGE_RANGES) as UsageRange[];
const isRange = (value: unknown): value is UsageRange =>
  typeof value === 'string' && (RANGES as string[]).includes(value);

/** A bucket's start as its row and tooltip name it: the hour, or the day. */
function bucketName(bucket: UsageBucket): string {
  const iso = bucket.start.toISOString();
  if (bucket.hours === 24) return iso.slice(0, 10);
  const end = new Date(bucket.start.getTime() + bucket.hours * 3_600_000)
    .toISOString()
    .slice(11, 16);
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}${bucket.hours === 1 ? '' : `-${end}`}`;
}

/** A bucket's start in a table row, short enough for a phone: month-day and hour. */
function shortName(bucket: UsageBucket): string {
  const iso = bucket.start.toISOString();
  return bucket.hours === 24 ? iso.slice(0, 10) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

/** The labels under the bars: every 6 hours, every day, every 5 days. */
function tick(range: UsageRange) {
  return (bucket: UsageBucket, index: number): string | undefined => {
    const iso = bucket.start.toISOString();
    if (range === '24h') return index % 6 === 0 ? iso.slice(11, 16) : undefined;
    if (range === '7d')
      return bucket.start.getUTCHours() === 0 && index < USAGE_RANGES[range].buckets - 2
        ? iso.slice(5, 10)
        : undefined;
    return index % 5 === 0 ? iso.slice(5, 10) : undefined;
  };
}

function thisHour(
  key: AccountKey,
  plan: { limit: number; windowSeconds: number } | undefined,
): SafeHtml {
  const refused =
    key.thisHour.refused === 0
      ? ''
      : html` Refused with 429 this hour: <strong>${count(key.thisHour.refused)}</strong>.`;
  if (plan === undefined || plan.windowSeconds !== 3600) {
    return html`<p>
      This hour (UTC): <strong>${count(key.thisHour.counted)}</strong> requests let
      through.${refused}
    </p>`;
  }
  return html`<p>
    This hour (UTC):
    <strong>${count(key.thisHour.counted)} of ${count(plan.limit)}</strong> requests used. That is
    what the rate limit counts: every request it let through this hour, whatever the answer (2xx,
    4xx or 5xx), so <code>X-RateLimit-Remaining</code> is ${count(plan.limit)} minus it.${refused}
  </p>`;
}

/** A key's usage by outcome over 24 hours, 7 days or 30 days, with its plan's limit. */
export function usagePage(deps: DashboardDeps): Router {
  const router = strictRouter();
  router.get(
    '/keys/:id/usage',
    handle(async (req: Request, res: Response) => {
      const me = signedIn(res)!;
      const at = deps.clock.now();
      const key = await ownKeyOrNotFound(deps, req, res, at);
      if (key === undefined) return;
      const range = isRange(req.query.range) ? req.query.range : '24h';
      const { title, bucketHours } = USAGE_RANGES[range];
      const [buckets, plan] = await Promise.all([
        usageOver(databaseOf(res, deps), key.id, at, range),
        planLimit(databaseOf(res, deps), me.planId),
      ]);
      const per = bucketHours === 1 ? 'hour' : bucketHours === 24 ? 'day' : `${bucketHours} hours`;
      const perHour = plan === undefined ? undefined : (plan.limit * 3600) / plan.windowSeconds;
      const limit =
        perHour === undefined
          ? undefined
          : {
              perBucket: perHour * bucketHours,
              text: `${count(perHour * bucketHours)} per ${per}`,
            };
      const sum = (pick: (bucket: UsageBucket) => number) =>
        buckets.reduce((total, bucket) => total + pick(bucket), 0);
      const base = `${DASHBOARD}/keys/${key.id}/usage`;
      const used = [...buckets].reverse().filter((bucket) => bucket.requests > 0);
      res.send(
        page({
          title: `Usage of ${key.name ?? key.displayPrefix}`,
          email: me.email,
          section: '/keys',
          body: html`<p>
              <code>${key.displayPrefix}…</code> ·
              <a href="${DASHBOARD}/keys/${key.id}/requests">Its requests</a> ·
              <a href="${DASHBOARD}/keys">Back to your keys</a>
            </p>
            ${thisHour(key, plan)}
            <ul class="tabs" aria-label="Period">
              ${RANGES.map((one) =>
                one === range
                  ? html`<li>
                      <a href="${base}?range=${one}" aria-current="page"
                        >${USAGE_RANGES[one].title}</a
                      >
                    </li>`
                  : html`<li><a href="${base}?range=${one}">${USAGE_RANGES[one].title}</a></li>`,
              )}
            </ul>
            <ul class="totals" aria-label="Totals over the ${title}">
              <li>Requests<strong>${count(sum((bucket) => bucket.requests))}</strong></li>
              ${OUTCOMES.map((outcome) => html`<li><span class="swatch o-${outcome}"></span>${OUTCOME_LABELS[outcome]}<strong>${count(sum((bucket) => bucket[outcome]))}</strong></li>`)}
              <li>Rows returned<strong>${count(sum((bucket) => bucket.rows))}</strong></li>
            </ul>
            ${usageChart({
              buckets,
              title: `Requests per ${per} over the ${title}`,
              tick: tick(range),
              limit,
              when: (bucket) => `${bucketName(bucket)} UTC`,
            })}
            <h2>
              ${bucketHours === 1 ? 'By hour' : bucketHours === 24 ? 'By day' : `By ${bucketHours}-hour span`}
              (UTC), newest first
            </h2>
            <p class="detail">
              ${per === 'hour' ? 'Hours' : per === 'day' ? 'Days' : 'Spans'} without requests are
              left out.
            </p>
            <table class="compact">
              <thead>
                <tr>
                  <th scope="col">
                    ${bucketHours === 24 ? 'Day' : bucketHours === 1 ? 'Hour' : 'From'}
                  </th>
                  ${OUTCOMES.map((outcome) => html`<th scope="col" class="num">${OUTCOME_LABELS[outcome]}</th>`)}
                  <th scope="col" class="num">Rows</th>
                </tr>
              </thead>
              <tbody>
                ${
                  used.length === 0
                    ? html`<tr>
                        <td colspan="6">No requests in the ${title}.</td>
                      </tr>`
                    : ''
                }
                ${used.map(
                  (bucket) =>
                    html`<tr>
                      <td class="time">${shortName(bucket)}</td>
                      ${OUTCOMES.map((outcome) => html`<td class="num">${count(bucket[outcome])}</td>`)}
                      <td class="num">${count(bucket.rows)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
            <p class="detail">
              Every request made with the key counts, whatever its answer; requests with no key, or
              a key that is not valid, belong to no key. Counts reach this page within a few
              seconds.
            </p>`,
        }),
      );
    }),
  );
  return router;
}
