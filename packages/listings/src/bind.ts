import { sql, type Placeholder } from '@domain-index/db';

/**
 * How a search statement takes each value it compares with: `inline` makes it a parameter of
 * its own (the statement is rendered for these values), a `Placeholders` binder names it, so
 * that the statement's text, rendered once for its shape, is filled with each request's values
 * (page-statements.ts).
 */
export type Bind = <T>(value: T) => T | Placeholder;

/** Each value a parameter of its own. */
export const inline: Bind = (value) => value;

/**
 * Each value a placeholder, named in the order of binding: p0, p1, ... A time is bound as the
 * ISO text Drizzle's timestamp columns send for it, since a placeholder's value reaches the
 * driver without the column's own encoding.
 */
export class Placeholders {
  readonly values: Record<string, unknown> = {};
  count = 0;

  readonly bind: Bind = (value) => {
    const name = `p${this.count}`;
    this.count += 1;
    this.values[name] = value instanceof Date ? value.toISOString() : value;
    return sql.placeholder(name);
  };
}
