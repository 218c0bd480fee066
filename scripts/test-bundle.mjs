// The test files as esbuild bundles, for scripts/run-tests.mjs: each test file with the sources it imports in one
// ES module (code shared between them in chunks). A test process then loads a few modules instead of ~630 TypeScript
// files through tsx's loader, whose hooks run on a thread of their own and answer every import by message: ~1 s and
// ~1.3 s of CPU less a test file (docs/performance.md, ninth session). The gateway's own dependencies are bundled
// too, as `npm run build` bundles them (PGlite and pg-native excepted), rather than resolved, read and compiled
// file by file by node's loaders in each test process: ~0.7 s of CPU less a test file (twelfth session). The
// test-only packages (the providers' SDKs, Playwright, autocannon...) are left to node. esbuild strips the types as
// tsx does (tsx uses esbuild too); nothing is minified.
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
import { DYNAMIC_COMMONJS_ADVICE, dynamicCommonJsImports, REQUIRE_BANNER } from './esbuild-node.mjs';

const CLIENT = path.resolve('src/storage/pglite-worker/client.ts');
const PACKAGE = JSON.parse(readFileSync('package.json', 'utf8'));

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
 * A bundle's path (without `.js`) under the out dir: its place in the list, then the source's path. Node's test
 * runner sorts the files it is given by name, so the place keeps the order the caller chose (the slowest first).
 */
function bundleName(file, index) {
  return path.join(String(index).padStart(4, '0'), file.replace(/\.ts$/, ''));
}

/**
 * Bundles `files` (paths relative to the checkout) into `outdir`, which must be inside the checkout (the bundles
 * import the packages of its node_modules). Returns the bundles' paths, in the order of `files`, which is also the
 * order of their names.
 */
export async function bundleTests(files, outdir) {
  const workerDir = path.join(outdir, 'pglite-worker');
  const common = {
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // the gateway's own dependencies bundled as `npm run build` bundles them; the test-only packages left to node
    external: [...Object.keys(PACKAGE.devDependencies), '@electric-sql/pglite', '@electric-sql/pglite/*', 'pg-native'],
    banner: { js: REQUIRE_BANNER },
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [sourceImportMeta(workerDir)],
  };
  const [tests] = await Promise.all([
    build({
      ...common,
      entryPoints: files.map((file, index) => ({ in: file, out: bundleName(file, index) })),
      outdir,
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      metafile: true,
    }),
    build({ ...common, entryPoints: { 'pglite-worker': 'src/storage/pglite-worker/worker.ts' }, outdir: workerDir }),
  ]);
  // a test's `await import('undici')` would get no `request` (it ran as `request is not a function`): refused here
  const dynamicCommonJs = dynamicCommonJsImports(tests.metafile);
  if (dynamicCommonJs.length > 0) throw new Error(`${DYNAMIC_COMMONJS_ADVICE}:\n  ${dynamicCommonJs.join('\n  ')}`);
  return files.map((file, index) => path.join(outdir, `${bundleName(file, index)}.js`));
}
