import type { Database } from './database';

/**
 * Makes something once per open database and hands back the same one after: a prepared
 * statement, built once instead of on every request. Held weakly, so a closed database's
 * statements go with it.
 */
export function perDatabase<T>(make: (database: Database) => T): (database: Database) => T {
  const made = new WeakMap<Database, T>();
  return (database) => {
    // a request's deadline view shares its database's memo: one per open database, not per request
    const { root } = database;
    let value = made.get(root);
    if (value === undefined) {
      value = make(root);
      made.set(root, value);
    }
    return value;
  };
}
