import type { WorkspaceImport } from './workspace-imports';

/** The release's composition root: the one app that starts the others (serve, sync, the embedded start). */
export const COMPOSITION_ROOT = 'apps/cli';

/** Modules that render pages: the dashboard, the docs page, the root page, the alert links' pages. */
export function isPage(module: string): boolean {
  return (
    module.startsWith('apps/api/src/dashboard/') ||
    module.startsWith('apps/api/src/api-docs/') ||
    module === 'apps/api/src/http/root' ||
    /^apps\/api\/src\/alerts\/[a-z-]+-router$/.test(module)
  );
}

/** Modules that hold the domain and its work, which must not know a page: every package, the worker, the API's models. */
export function isModel(module: string): boolean {
  return (
    /^packages\/[^/]+\/src\//.test(module) ||
    module.startsWith('apps/worker/src/') ||
    /^apps\/api\/src\/(auth|listings|search|ratelimit|replicas|wire|usage|request-log)\//.test(module)
  );
}

const appOf = (path: string) => /^apps\/[^/]+/.exec(path)?.[0];

/** Why an import breaks the layout, or undefined when it does not. */
export function layoutViolation({ from, to }: WorkspaceImport): string | undefined {
  const fromApp = appOf(from);
  const toApp = appOf(to);
  if (fromApp !== undefined && toApp !== undefined && fromApp !== toApp && fromApp !== COMPOSITION_ROOT) {
    return `an app imports another app (${fromApp} -> ${toApp})`;
  }
  if (from.startsWith('packages/') && toApp !== undefined) {
    return `a package imports an app (${toApp})`;
  }
  const module = to.replace(/\.ts$/, '');
  if (isModel(from.replace(/\.ts$/, '')) && isPage(module)) return 'a model imports a page';
  return undefined;
}
