import { z } from 'zod';
import { domainSchema, timestampSchema } from './domain';
import { LISTING_STATUSES } from './search-params';
import { API_VERSION } from './texts';

/** `meta` of every successful response. */
export const metaSchema = z
  .object({
    api_version: z.literal(API_VERSION),
    index_score: z.string().describe('The index_score caveat'),
  })
  .strict();

/** The list envelope of `GET /api/v1/domains`. */
export const listEnvelopeSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(domainSchema),
    pagination: z
      .object({
        page_size: z.number().int().describe('The limit actually applied'),
        page_index: z.number().int().nonnegative().describe('0 on a first page'),
        next_cursor: z.string().nullable().describe('Cursor of the next page; null on the last'),
        has_more: z.boolean().describe('Whether a further page exists'),
      })
      .strict(),
    total: z
      .object({
        value: z.number().int().nonnegative().describe('Rows matching the query'),
        accuracy: z
          .enum(['exact', 'planned'])
          .describe('exact: a true count; planned: the planner estimate, possibly far off'),
      })
      .strict(),
    meta: metaSchema,
  })
  .strict();

/** The lookup envelope of `GET /api/v1/domains/{domain}`. */
export const lookupEnvelopeSchema = z
  .object({
    object: z.literal('domain'),
    data: domainSchema,
    meta: metaSchema,
  })
  .strict();

const byStatusSchema = z
  .object(
    Object.fromEntries(LISTING_STATUSES.map((status) => [status, z.number().int().nonnegative()])) as Record<
      (typeof LISTING_STATUSES)[number],
      z.ZodNumber
    >,
  )
  .strict();

/** The stats envelope of `GET /api/v1/stats`. */
export const statsEnvelopeSchema = z
  .object({
    object: z.literal('stats'),
    data: z
      .object({
        as_of: timestampSchema.describe('When these counts were measured'),
        total: z.number().int().nonnegative().describe('All indexed rows'),
        live: z.number().int().nonnegative().describe('Rows a search without status returns'),
        retrievable: z.number().int().nonnegative().describe('Rows of the status=all set'),
        by_status: byStatusSchema,
        by_source: z
          .record(z.string(), z.number().int().nonnegative())
          .describe('Counts per configured marketplace'),
      })
      .strict(),
    meta: metaSchema.extend({ counts: z.string() }).strict(),
  })
  .strict();

/** A page of search results. */
export type ListEnvelope = z.infer<typeof listEnvelopeSchema>;
/** The response of a lookup. */
export type LookupEnvelope = z.infer<typeof lookupEnvelopeSchema>;
/** The response of the stats endpoint. */
export type StatsEnvelope = z.infer<typeof statsEnvelopeSchema>;
/** `meta` of a successful response. */
export type Meta = z.infer<typeof metaSchema>;
/** `pagination` of a page. */
export type Pagination = ListEnvelope['pagination'];
/** `total` of a page. */
export type Total = ListEnvelope['total'];
