import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { layoutViolation } from './layout-rules';
import { allImports, workspaceImports } from './workspace-imports';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('the layout', () => {
  const imports = workspaceImports(root);

  it('reads the imports of every app and package', () => {
    for (const folder of ['apps/api/', 'apps/worker/', 'apps/cli/', 'packages/alerts/']) {
      expect(imports.some((found) => found.from.startsWith(folder))).toBe(true);
    }
  });

  it('has no app importing another app (but the CLI), no package importing an app, no model importing a page', () => {
    const broken = imports.flatMap((found) => {
      const why = layoutViolation(found);
      return why === undefined ? [] : [`${found.from}: '${found.specifier}': ${why}`];
    });
    expect(broken).toEqual([]);
  });

  it.each([
    [{ from: 'apps/api/src/app.ts', to: 'apps/worker/src/indexing/import-batch', specifier: '@domain-index/worker/indexing/import-batch' }, 'an app imports another app (apps/api -> apps/worker)'],
    [{ from: 'apps/worker/src/alerts/digests.ts', to: 'apps/api/src/http/root', specifier: '@domain-index/api/http/root' }, 'an app imports another app (apps/worker -> apps/api)'],
    [{ from: 'packages/alerts/src/outbox.ts', to: 'apps/api/src/app', specifier: '@domain-index/api/app' }, 'a package imports an app (apps/api)'],
    [{ from: 'apps/api/src/auth/authenticate.ts', to: 'apps/api/src/dashboard/layout', specifier: '../dashboard/layout' }, 'a model imports a page'],
  ])('names the rule an import breaks: %o', (found, why) => {
    expect(layoutViolation(found)).toBe(why);
  });

  it('lets the release import both programs, and a page import a model', () => {
    expect(layoutViolation({ from: 'apps/cli/src/commands/serve.ts', to: 'apps/api/src/app', specifier: '@domain-index/api/app' })).toBeUndefined();
    expect(layoutViolation({ from: 'apps/cli/src/commands/sync.ts', to: 'apps/worker/src/indexing/sync-worker', specifier: '@domain-index/worker/indexing/sync-worker' })).toBeUndefined();
    expect(layoutViolation({ from: 'apps/api/src/dashboard/keys-pages.ts', to: 'packages/accounts/src/account-keys', specifier: '@domain-index/accounts/account-keys' })).toBeUndefined();
  });
});

describe('what the serving process may load', () => {
  it('enters no AsyncLocalStorage scope: nothing the API or the worker runs imports async_hooks', () => {
    // On Node 20 one AsyncLocalStorage.run turns on promise hooks for every promise of the
    // process after it, a cost on every request (issue 37, bench/notes/80). A request's deadline
    // goes by its database view (Database.until) instead.
    // The embedded start's control server (apps/cli) is the one user, and serves no requests.
    const hooks = allImports(root, ['apps/api/src', 'apps/worker/src', 'packages'])
      .filter(({ from }) => !/\.test\.ts$/.test(from) && !from.includes('/test/'))
      .filter(({ specifier }) => specifier === 'async_hooks' || specifier === 'node:async_hooks')
      .map(({ from }) => from);
    expect(hooks).toEqual([]);
  });

  it('finds an import of async_hooks where there is one', () => {
    expect(allImports(root, ['apps/cli/src']).some(({ specifier }) => specifier === 'node:async_hooks')).toBe(true);
  });
});
