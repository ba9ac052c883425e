export * from './advisory-lock';
export * from './copy-in';
export * from './database';
export * from './database-url';
export * from './deadline';
export * from './failures';
export * from './migrate';
export * from './per-database';
export * from './plan-without-workers';
export * from './pooler-errors';
export * from './prerendered';
export * from './rows';
export * from './schema';
export * from './snapshot-reader';
// The query builders come from here, so every package uses the one drizzle-orm this package resolves.
export * from 'drizzle-orm/sql';
export * from './sort-keys';
export { getTableColumns, fillPlaceholders } from 'drizzle-orm';
export type { AnyPgColumn } from 'drizzle-orm/pg-core';
