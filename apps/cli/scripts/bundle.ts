// Bundles the release into apps/cli/dist as plain JavaScript, for the container image: the
// workspace's TypeScript is compiled here, once, instead of by tsx at every start.
// Dependencies from node_modules stay external (they are installed beside it). Workspace code
// that finds files relative to its own source (`import.meta.url`: the migrations, package.json,
// createRequire of a dependency of its package) is given its source file's address, so it finds
// them where the workspace keeps them; the image keeps the same layout (/app/packages/...).
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const cliRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(cliRoot, '../..');
const outdir = join(cliRoot, 'dist');

// The staging worker thread's entry, as the source names it and as the bundle has it.
const STAGING_ENTRY_IN_SOURCE = "new URL('../../bin/staging-worker.js', import.meta.url)";
const STAGING_ENTRY_IN_BUNDLE = "new URL('./staging-worker.js', import.meta.url)";

/** Workspace sources: TypeScript of this repository outside node_modules. */
const workspaceSources: Plugin = {
  name: 'workspace-sources',
  setup(pluginBuild) {
    // Every bare import that is not one of the workspace's own packages stays an import.
    pluginBuild.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@domain-index/') || args.path.startsWith('node:')) return undefined;
      return { path: args.path, external: true };
    });
    pluginBuild.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`) && !args.path.startsWith(repoRoot))
        return undefined;
      let contents = await readFile(args.path, 'utf8');
      if (args.path.endsWith(join('indexing', 'staging-pool.ts'))) {
        if (!contents.includes(STAGING_ENTRY_IN_SOURCE))
          throw new Error(
            `${args.path} no longer names its worker as ${STAGING_ENTRY_IN_SOURCE}: update bundle.ts`,
          );
        contents = contents.replace(STAGING_ENTRY_IN_SOURCE, STAGING_ENTRY_IN_BUNDLE);
      }
      const fromBundle = relative(outdir, args.path).split(sep).join('/');
      contents = contents.replaceAll(
        'import.meta.url',
        `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`,
      );
      return { contents, loader: 'ts' };
    });
  },
};

await rm(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: repoRoot,
  entryPoints: {
    'domain-index': join(cliRoot, 'src/cli.ts'),
    'staging-worker': join(repoRoot, 'apps/worker/src/indexing/staging-worker.ts'),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  conditions: ['import', 'node'],
  plugins: [workspaceSources],
  logLevel: 'warning',
  metafile: true,
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(
  `bundled the release into ${relative(repoRoot, outdir)}: ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1e6).toFixed(1)} MB`,
);
