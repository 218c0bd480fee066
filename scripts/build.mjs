#!/usr/bin/env node
// The production build (`npm run build`, run by `npm ci` through `prepare`): the gateway bundled by esbuild into a
// few ES modules in dist/, the migrations beside them, the embedded database's template made from them, and the
// console built by Vite. Usage: node scripts/build.mjs [outdir]   (default dist; the console only goes to dist)
//
// Why a bundle and not tsc's one file per module: a process loads ~1,100 ES modules and CommonJS files from
// node_modules otherwise, and resolving, reading and compiling each of them is most of a start-up (docs/performance.md,
// "One bundle"). Every output file is written flat in the out dir, so a module's `import.meta.url` names the out
// dir wherever esbuild puts its code: `./migrations`, `./pglite-template` and `./pglite-worker.js` resolve there.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { DYNAMIC_COMMONJS_ADVICE, dynamicCommonJsImports, REQUIRE_BANNER } from './esbuild-node.mjs';

const outdir = path.resolve(process.argv[2] ?? 'dist');
rmSync(outdir, { recursive: true, force: true });

const result = await build({
  entryPoints: {
    main: 'src/main.ts',
    'pglite-worker': 'src/storage/pglite-worker/worker.ts',
    'make-template': 'src/storage/pglite-worker/make-template.ts',
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  // PGlite finds its WebAssembly and data files next to its own modules; pg-native is node-postgres's optional binding
  external: ['@electric-sql/pglite', '@electric-sql/pglite/*', 'pg-native'],
  // whitespace and syntax only: names stay as written, so stack traces and error names read as in the sources
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'eof',
  banner: { js: REQUIRE_BANNER },
  logLevel: 'warning',
  metafile: true,
});

const dynamicCommonJs = dynamicCommonJsImports(result.metafile);
if (dynamicCommonJs.length > 0) {
  console.error(`build: ${DYNAMIC_COMMONJS_ADVICE}:\n  ${dynamicCommonJs.join('\n  ')}`);
  process.exit(1);
}

cpSync('src/storage/migrations', path.join(outdir, 'migrations'), { recursive: true, filter: (file) => !file.includes('meta') });

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`build: ${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}

run(process.execPath, [path.join(outdir, 'make-template.js'), path.join(outdir, 'pglite-template')]);
if (outdir === path.resolve('dist')) run(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'console/vite.config.ts']);
