// The test files as esbuild bundles, for scripts/run-tests.mjs: each test file with the sources it imports in one
// ES module (code shared between them in chunks), the packages left to node. A test process then loads a few
// modules instead of ~630 TypeScript files through tsx's loader, whose hooks run on a thread of their own and answer
// every import by message: ~1 s and ~1.3 s of CPU less a test file (docs/performance.md, ninth session). esbuild
// strips the types as tsx does (tsx uses esbuild too); nothing is minified.
//
// What a bundle would change, and how it is kept as it was:
// - `import.meta.url`, `.dirname` and `.filename` are the source file's, not the bundle's, so paths a module finds
//   beside itself (migrations, fixtures, the console's build) resolve as under tsx.
// - the embedded database's thread runs the database's own bundle, as `npm start` does: client.ts starts
//   `./pglite-worker.js` beside itself when it is compiled, so its `import.meta.url` is made that of a compiled
//   module in the directory where the worker's bundle is written. Children the tests spawn with `--import tsx`
//   (src/main.ts, fixtures) still run the TypeScript sources.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const CLIENT = path.resolve('src/storage/pglite-worker/client.ts');

/** `import.meta` of each source file as under tsx (client.ts's: see above). */
function sourceImportMeta(workerDir) {
  return {
    name: 'source-import-meta',
    setup(builder) {
      builder.onLoad({ filter: /\.m?ts$/ }, (args) => {
        let text = readFileSync(args.path, 'utf8');
        if (text.includes('import.meta')) {
          const file = args.path === CLIENT ? path.join(workerDir, 'client.js') : args.path;
          text = text
            .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href))
            .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(file)))
            .replaceAll('import.meta.filename', JSON.stringify(file));
        }
        return { contents: text, loader: 'ts' };
      });
    },
  };
}

/**
 * Bundles `files` (paths relative to the checkout) into `outdir`, which must be inside the checkout (the bundles
 * import the packages of its node_modules). Returns the bundles' paths, in the order of `files`.
 */
export async function bundleTests(files, outdir) {
  const workerDir = path.join(outdir, 'pglite-worker');
  const common = {
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [sourceImportMeta(workerDir)],
  };
  await Promise.all([
    build({
      ...common,
      entryPoints: files.map((file) => ({ in: file, out: file.replace(/\.ts$/, '') })),
      outdir,
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
    }),
    build({ ...common, entryPoints: { 'pglite-worker': 'src/storage/pglite-worker/worker.ts' }, outdir: workerDir }),
  ]);
  return files.map((file) => path.join(outdir, file.replace(/\.ts$/, '.js')));
}
