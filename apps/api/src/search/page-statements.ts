import type { SearchQuery } from '@domain-index/contract';
import {
  fillPlaceholders,
  perDatabase,
  Placeholder,
  type Database,
  type RenderedStatement,
} from '@domain-index/db';
import { Placeholders } from '@domain-index/listings/bind';
import { boundApplies } from '@domain-index/listings/bounds';
import type { CursorPosition } from './cursor';
import { BOUND_ENTRIES } from '@domain-index/listings/filters';
import type { Ordering } from './ordering';
import { pageConditions, pageQuery } from './page-query';
import type { PageStrategy } from './page-strategy';

/** A page statement's text for one shape, with its placeholders in the order they are sent. */
interface Template {
  sql: string;
  params: readonly unknown[];
  /** How many values the shape binds: a request binding another number is not of this shape. */
  placeholders: number;
}

/** Shapes kept per database; far more than the API's parameters can combine into in practice. */
const MAX_SHAPES = 2_000;

/**
 * Everything about a search that decides its page statement's text, as opposed to the values
 * bound into it: which filters apply (filters.ts: a status or none, `all`; each term, bigram or
 * trigram; each bound that applies, by bounds.ts's own rule), the order, where the page starts
 * (keyset.ts: the first page, or after a row with or without a sort key) and the strategy.
 */
function shapeOf(
  query: SearchQuery,
  ordering: Ordering,
  after: CursorPosition | undefined,
  strategy: PageStrategy,
): string {
  let shape = `${ordering.sort} ${ordering.order} ${strategy} ${after === undefined ? 'first' : after.key === null ? 'after-null' : 'after'}`;
  shape += query.status === undefined ? ' live' : query.status === 'all' ? ' all' : ' status';
  for (const term of query.search ?? []) shape += term.length === 2 ? ' bigram' : ' trigram';
  if (query.tld !== undefined) shape += ' tld';
  if (query.source !== undefined) shape += ' source';
  if (query.no_hyphens === true) shape += ' no_hyphens';
  if (query.no_numbers === true) shape += ' no_numbers';
  for (const [param, [, side]] of BOUND_ENTRIES)
    if (boundApplies(side, query[param])) shape += ` ${param}`;
  if (query.ending_within !== undefined) shape += ' ending_within';
  return shape;
}

/**
 * The page statement of a search (page-query.ts), its text rendered once per shape and filled
 * with each request's values. Drizzle renders a statement by walking every fragment of it, which
 * cost a search page 80-170 us (BENCHMARKS.md); the statement's parts are still built on each
 * request, with placeholders (bind.ts), which is what gives the values in order and is cheap.
 *
 * Two guards keep one shape's text from serving another: a template is made only when every
 * parameter of the statement is a placeholder (so no request's value is frozen into it), and a
 * request that binds another number of values than its shape's template is rendered on its own.
 * A property test compares the rows with and without the cache over random filter sets
 * (test/page-statements.test.ts).
 */
export class PageStatements {
  /** Each database's templates by shape (a database's dialect renders its own text). */
  private readonly templates = perDatabase(() => new Map<string, Template>());

  statement(
    database: Database,
    query: SearchQuery,
    ordering: Ordering,
    after: CursorPosition | undefined,
    now: Date,
    strategy: PageStrategy,
  ): RenderedStatement {
    const placeholders = new Placeholders();
    const where = pageConditions(query, now, placeholders.bind);
    const built = pageQuery(
      database,
      where,
      ordering,
      after,
      query.limit,
      now,
      strategy,
      placeholders.bind,
    );
    const templates = this.templates(database);
    const shape = shapeOf(query, ordering, after, strategy);
    let template = templates.get(shape);
    if (template === undefined || template.placeholders !== placeholders.count) {
      const rendered = built.toSQL();
      const fresh: Template = {
        sql: rendered.sql,
        params: rendered.params,
        placeholders: placeholders.count,
      };
      if (
        rendered.params.every((param) => param instanceof Placeholder) &&
        template === undefined
      ) {
        if (templates.size >= MAX_SHAPES) templates.clear();
        templates.set(shape, fresh);
      }
      template = fresh;
    }
    return {
      sql: template.sql,
      params: fillPlaceholders(template.params as unknown[], placeholders.values),
    };
  }
}
