import { z } from 'zod';
import { DOMAIN_FIELDS, type Domain } from './domain';
import { checkFilterRules, listingFilterFields, SORT_FIELDS, SORT_ORDERS } from './search-params';
import { boolean, oneOf } from './wire';

/** The formats an export streams in. */
export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
/** An export format. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The media type of each format's body. */
export const EXPORT_CONTENT_TYPES: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv; charset=utf-8; header=present',
  jsonl: 'application/x-ndjson; charset=utf-8',
};

/** The rules of an export that are not a search's. */
export const EXPORT_LIMITS = {
  /** Rows that cost one request of the hourly allowance (a started block counts whole). */
  rowsPerRequest: 1_000,
  /** Exports one key may run at once. */
  concurrentPerKey: 2,
} as const;

/** Requests of the hourly allowance an export of `rows` rows costs: one per started 1,000, at least one. */
export function exportCost(rows: number): number {
  return Math.max(1, Math.ceil(rows / EXPORT_LIMITS.rowsPerRequest));
}

const exportFields = {
  ...listingFilterFields,
  sort: oneOf(SORT_FIELDS).describe('Sort field, as in a search; default index_score (length for status=dropping)'),
  order: oneOf(SORT_ORDERS).describe('Sort direction, as in a search'),
  format: oneOf(EXPORT_FORMATS).describe('`csv` (a header row, then one row per listing) or `jsonl` (one domain object per line); required'),
  summary: boolean().describe('JSONL only: end the body with one line `{"object":"export_summary","rows":N}`; default false'),
};

/**
 * The query of `GET /api/v1/exports/domains`: every filter and the sort of a search, and the
 * format, which is required. A search's paging parameters (`limit`, `cursor`) are not taken:
 * 400 unknown_parameter naming them, since an export streams every matching row.
 */
export const exportQuerySchema = z
  .object(exportFields)
  .strict()
  .superRefine((query, ctx) => {
    if (query.format === undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['format'], message: `is required: one of ${EXPORT_FORMATS.join(', ')}` });
    if (query.summary === true && query.format === 'csv') ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['summary'], message: 'applies to format=jsonl only: a CSV body is rows alone' });
    checkFilterRules(query, ctx);
  });

/** Export parameters as a caller passes them. */
export type ExportParams = z.input<typeof exportQuerySchema>;
/** Export parameters after validation. */
export type ExportQuery = z.output<typeof exportQuerySchema>;

/** The last line of a JSONL export with `summary=true`: how many rows came before it. */
export const exportSummarySchema = z.object({ object: z.literal('export_summary'), rows: z.number().int().nonnegative() }).strict();
/** The summary line of a JSONL export. */
export type ExportSummary = z.infer<typeof exportSummarySchema>;

/**
 * The line that ends a JSONL export which failed part-way: the error envelope on a line of its
 * own. A body whose last line is this is incomplete; retry the export.
 */
export const EXPORT_ERROR_LINE_EXAMPLE = { error: { code: 'query_failed', message: 'the export stopped after 120000 rows and is incomplete; please retry' } };

/** The header row of a CSV export: the domain object's fields in their order. */
export const CSV_HEADER = `${DOMAIN_FIELDS.join(',')}\r\n`;

/** One CSV field by RFC 4180: quoted when it holds a comma, a quote, CR or LF (quotes doubled); null is empty. */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV record of a domain, CRLF-terminated, fields in the header's order. */
export function csvRecord(domain: Domain): string {
  let line = '';
  for (let i = 0; i < DOMAIN_FIELDS.length; i += 1) {
    if (i > 0) line += ',';
    line += csvField(domain[DOMAIN_FIELDS[i]!]);
  }
  return `${line}\r\n`;
}
