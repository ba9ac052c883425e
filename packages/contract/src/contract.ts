import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { lookupEnvelopeSchema, listEnvelopeSchema, statsEnvelopeSchema } from './envelopes';
import { errorEnvelopeSchema } from './errors';
import { eventListEnvelopeSchema, eventQuerySchema } from './events';
import { noParamsSchema, searchQuerySchema } from './search-params';
import { PATH_PREFIX } from './texts';

const c = initContract();

/** Every error status an endpoint can answer with, all in the one error envelope. */
const errorResponses = {
  400: errorEnvelopeSchema,
  401: errorEnvelopeSchema,
  404: errorEnvelopeSchema,
  405: errorEnvelopeSchema,
  410: errorEnvelopeSchema,
  429: errorEnvelopeSchema,
  500: errorEnvelopeSchema,
  503: errorEnvelopeSchema,
} as const;

/** The v1 API under /api/v1. */
export const contract = c.router(
  {
    searchDomains: {
      method: 'GET',
      path: '/domains',
      query: searchQuerySchema,
      responses: { 200: listEnvelopeSchema },
      summary: 'Search listed domains',
      description:
        'Filters, sorting and keyset-cursor paging over the listings that have not ended. Without `status`, only running auctions.',
    },
    getDomain: {
      method: 'GET',
      path: '/domains/:domain',
      pathParams: z.object({
        domain: z.string().describe('Domain name in ASCII/punycode form; only lowercased'),
      }),
      query: noParamsSchema,
      responses: { 200: lookupEnvelopeSchema },
      summary: 'Look one listed domain up',
      description:
        'One listing, chosen deterministically when several marketplaces list the name: not ended first; then auction, available, dropping; then the most recently checked.',
    },
    listEvents: {
      method: 'GET',
      path: '/events',
      query: eventQuerySchema,
      responses: { 200: eventListEnvelopeSchema },
      summary: 'What changed: the change feed',
      description:
        'Events of the index in commit order (listings added, updated, removed, ending soon, ended; a source loaded), filtered like a search, paged with a cursor to store. Poll it: every page carries the cursor to resume from, empty pages included. Events are kept EVENT_RETENTION_DAYS (14 by default); an older cursor answers 410 cursor_expired.',
    },
    getStats: {
      method: 'GET',
      path: '/stats',
      query: noParamsSchema,
      responses: { 200: statsEnvelopeSchema },
      summary: 'Index statistics',
      description: 'Index-wide counts, measured concurrently and cached for 5 minutes.',
    },
  },
  {
    pathPrefix: PATH_PREFIX,
    commonResponses: errorResponses,
    strictStatusCodes: true,
  },
);

/** The type of the v1 contract. */
export type Contract = typeof contract;
