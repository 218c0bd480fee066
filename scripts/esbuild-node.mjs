// What the production build (scripts/build.mjs) and the test bundles (scripts/test-bundle.mjs) share when esbuild
// bundles CommonJS packages into ES modules for node.

/** CommonJS dependencies inside an ES module still call require() for node's modules and read __dirname. */
export const REQUIRE_BANNER = [
  "import { createRequire as __gatewayCreateRequire } from 'node:module';",
  "import { fileURLToPath as __gatewayFileUrlToPath } from 'node:url';",
  'const require = __gatewayCreateRequire(import.meta.url);',
  'const __filename = __gatewayFileUrlToPath(import.meta.url);',
  "const __dirname = __gatewayFileUrlToPath(new URL('.', import.meta.url));",
].join('');

// esbuild gives a dynamic import() of a CommonJS package only a `default` export once it is split into its own chunk
// (evanw/esbuild#3245), where node gives its named exports too: such a package is imported statically by one of our
// modules, and that module is the one imported dynamically.
// Known and unreachable: OpenTelemetry's host detector reads the machine id this way; the gateway's tracing uses
// defaultResource() and a service name (src/tracing/tracing.ts), never that detector.
const UNREACHABLE = /^node_modules\/@opentelemetry\/resources\/build\/src\/detectors\/platform\/node\/machine-id\//;

/** Each dynamic import() of a bundled CommonJS module in esbuild's metafile, as `importer → imported`. */
export function dynamicCommonJsImports(metafile) {
  const found = [];
  for (const [file, input] of Object.entries(metafile.inputs)) {
    if (UNREACHABLE.test(file)) continue;
    for (const imported of input.imports) {
      if (imported.kind === 'dynamic-import' && metafile.inputs[imported.path]?.format === 'cjs') found.push(`${file} → ${imported.path}`);
    }
  }
  return found;
}

export const DYNAMIC_COMMONJS_ADVICE =
  'a dynamic import() of a CommonJS module loses its named exports in the bundle; import it statically from a module of ours and import that one dynamically';
