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
  // CommonJS dependencies inside an ES module still call require() for node's modules and read __dirname
  banner: {
    js: [
      "import { createRequire as __gatewayCreateRequire } from 'node:module';",
      "import { fileURLToPath as __gatewayFileUrlToPath } from 'node:url';",
      'const require = __gatewayCreateRequire(import.meta.url);',
      'const __filename = __gatewayFileUrlToPath(import.meta.url);',
      "const __dirname = __gatewayFileUrlToPath(new URL('.', import.meta.url));",
    ].join(''),
  },
  logLevel: 'warning',
  metafile: true,
});

// esbuild gives a dynamic import() of a CommonJS package only a `default` export once it is split into its own chunk
// (evanw/esbuild#3245), where node gives its named exports too: such a package is imported statically by one of our
// modules, and that module is the one imported dynamically.
// Known and unreachable: OpenTelemetry's host detector reads the machine id this way; the gateway's tracing uses
// defaultResource() and a service name (src/tracing/tracing.ts), never that detector.
const UNREACHABLE = /^node_modules\/@opentelemetry\/resources\/build\/src\/detectors\/platform\/node\/machine-id\//;
const dynamicCommonJs = [];
for (const [file, input] of Object.entries(result.metafile.inputs)) {
  if (UNREACHABLE.test(file)) continue;
  for (const imported of input.imports) {
    if (imported.kind === 'dynamic-import' && result.metafile.inputs[imported.path]?.format === 'cjs') dynamicCommonJs.push(`${file} → ${imported.path}`);
  }
}
if (dynamicCommonJs.length > 0) {
  console.error(`build: a dynamic import() of a CommonJS module loses its named exports in the bundle; import it statically from a module of ours and import that one dynamically:\n  ${dynamicCommonJs.join('\n  ')}`);
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
