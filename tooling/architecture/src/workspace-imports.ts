import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One import of a workspace module by another, both as repository-relative paths. */
export interface WorkspaceImport {
  from: string;
  /** The imported module, or the package folder when it is named by a package specifier. */
  to: string;
  specifier: string;
}

const SKIPPED = new Set(['node_modules', 'dist', '.git', '.turbo', 'coverage']);

/** The folders that hold a package.json: apps/*, packages/*, tooling/*, bench, by package name. */
export function workspacePackages(root: string): Map<string, string> {
  const byName = new Map<string, string>();
  const folders = ['apps', 'packages', 'tooling'].flatMap((group) =>
    existsSync(join(root, group)) ? readdirSync(join(root, group)).map((name) => `${group}/${name}`) : [],
  );
  for (const folder of [...folders, 'bench']) {
    const manifest = join(root, folder, 'package.json');
    if (existsSync(manifest)) byName.set((JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }).name, folder);
  }
  return byName;
}

function typeScriptFiles(root: string, folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.[cm]?ts$/.test(entry.name)) found.push(path);
    }
  };
  if (existsSync(join(root, folder))) walk(folder);
  return found;
}

/**
 * Every import between workspace modules: static imports and re-exports, side-effect imports
 * and dynamic `import()`, read by TypeScript's own pre-processor from each .ts file's text.
 */
export function workspaceImports(root: string): WorkspaceImport[] {
  const packages = workspacePackages(root);
  const imports: WorkspaceImport[] = [];
  for (const file of ['apps', 'packages', 'tooling', 'bench'].flatMap((folder) => typeScriptFiles(root, folder))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    for (const { fileName: specifier } of importedFiles) {
      const to = target(root, file, specifier, packages);
      if (to !== undefined) imports.push({ from: file, to, specifier });
    }
  }
  return imports;
}

function target(root: string, file: string, specifier: string, packages: Map<string, string>): string | undefined {
  if (specifier.startsWith('.')) return relative(root, resolve(root, dirname(file), specifier));
  const name = specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
  const folder = packages.get(name);
  if (folder === undefined) return undefined;
  const rest = specifier.slice(name.length + 1);
  if (rest === '') return folder;
  // the internal packages export "./*" as "./src/*.ts"
  return existsSync(join(root, folder, 'src', `${rest}.ts`)) ? `${folder}/src/${rest}` : `${folder}/${rest}`;
}

/** Every import specifier of every .ts file under `folders` (packages and built-ins alike). */
export function allImports(root: string, folders: string[]): { from: string; specifier: string }[] {
  return folders.flatMap((folder) =>
    typeScriptFiles(root, folder).flatMap((file) =>
      ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true).importedFiles.map(({ fileName }) => ({ from: file, specifier: fileName })),
    ),
  );
}
