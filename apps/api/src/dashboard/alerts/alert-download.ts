import { findPlan } from '@domain-index/accounts/plan-store';
import { alertListingsExport } from '@domain-index/alerts/alert-query';
import { ApiError } from '@domain-index/api-errors/api-error';
import type { Router } from 'express';
import { pipeline } from 'node:stream/promises';
import { strictRouter } from '../../http/strict-router';
import { chargeExport } from '../../exports/export-charge';
import { alertsOf, handle, signedIn, type DashboardDeps } from '../dashboard-deps';
import { sendNotFound } from '../not-found';
import { sendAlertPage } from './alert-page';
import { databaseOf } from '../../http/request-deadline';

/** The bucket of the rate limiter an account's downloads count in: apart from its keys' own. */
export const downloadBucket = (accountId: string) => `dashboard-export:${accountId}`;

/**
 * GET /dashboard/alerts/:id/listings.csv: "Download CSV" beside a saved filter. The listings the
 * alert's filter matches now, as the API's CSV export streams them (listing-exports.ts: one
 * snapshot, the search's order, nothing buffered beyond a few pages). An account has no key, so
 * its downloads are metered as a key's exports are, in a bucket of their own with the plan's
 * hourly limit: one request per started 1,000 rows, the plan's cap on rows per export, two
 * running at once. A refusal (over the cap, over the hour's allowance) is the alert's page with
 * the numbers, before any row; another account's alert is the 404 page.
 */
export function alertDownload(deps: DashboardDeps): Router {
  const router = strictRouter();
  router.get(
    '/alerts/:id/listings.csv',
    handle(async (req, res) => {
      const me = signedIn(res)!;
      const row = await alertsOf(res, deps).find({ accountId: me.id }, req.params.id ?? '');
      if (row === undefined) {
        sendNotFound(res);
        return;
      }
      let query;
      try {
        query = alertListingsExport(row.query as Record<string, string>, 'csv');
      } catch {
        // a filter stored under older rules: the page's edit form says what it accepts now
        await sendAlertPage(deps, req, res, {
          status: 400,
          refusal:
            "This alert's filter is no longer accepted as a search: save it again below to see what to change.",
        });
        return;
      }
      const plan = await findPlan(databaseOf(res, deps), me.planId);
      let started;
      try {
        started = await deps.listingExports.start(res, {
          query,
          head: false,
          acceptEncoding: req.headers['accept-encoding'],
          slot: `export:${downloadBucket(me.id)}`,
          holder: ['your account', 'one account'],
          charge: async (count, now) => {
            if (plan === undefined)
              throw new ApiError(
                'export_too_large',
                `your account's plan (${me.planId}) is not known to this server, so it allows no export`,
              );
            await chargeExport(
              deps.rateLimiter,
              {
                bucket: downloadBucket(me.id),
                planId: plan.id,
                exportRowsMax: plan.exportRowsMax,
                limit: plan.requestsPerWindow,
                windowSeconds: plan.windowSeconds,
                alreadyCounted: 0,
                words: {
                  noun: 'download',
                  holder: "your account's downloads have",
                  narrow: "narrow the alert's filter",
                  retry: (seconds) => `retry in ${Math.max(1, Math.ceil(seconds / 60))} min`,
                },
              },
              count,
              now,
            );
          },
        });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        await sendAlertPage(deps, req, res, { status: error.status, refusal: error.message });
        return;
      }
      res.status(200);
      // a body that fails part-way destroys the response (listing-exports.ts): the browser reports the download failed, never a short file as complete
      await pipeline(started.body, res).catch(() => undefined);
    }),
  );
  return router;
}
