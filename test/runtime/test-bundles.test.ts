/**
 * How `npm test` bundles the test files (scripts/test-bundle.mjs, scripts/esbuild-node.mjs): a dynamic import() of a
 * bundled CommonJS package is found (the build and the test bundler refuse it: the package would keep only its
 * `default` export), and the bundles' names sort in the order they were asked for (node's test runner runs its files
 * in name order, and scripts/run-tests.mjs starts the slowest first).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Metafile {
  inputs: Record<string, { format?: 'cjs' | 'esm'; imports: Array<{ path: string; kind: string }> }>;
}
// plain JavaScript modules of the build (no declarations): their exports typed here
const { dynamicCommonJsImports } = (await import(pathToFileURL(path.join(ROOT, 'scripts/esbuild-node.mjs')).href)) as {
  dynamicCommonJsImports(metafile: Metafile): string[];
};
const { bundleTests } = (await import(pathToFileURL(path.join(ROOT, 'scripts/test-bundle.mjs')).href)) as {
  bundleTests(files: string[], outdir: string): Promise<string[]>;
};

describe('the test bundles', () => {
  test('a dynamic import() of a CommonJS module is found; a static one, an ES module or the known unreachable one are not', () => {
    const metafile: Metafile = {
      inputs: {
        'test/a.test.ts': {
          format: 'esm',
          imports: [
            { path: 'node_modules/undici/index.js', kind: 'dynamic-import' },
            { path: 'node_modules/esm-only/index.mjs', kind: 'dynamic-import' },
            { path: 'node_modules/pg/lib/index.js', kind: 'import-statement' },
          ],
        },
        'node_modules/@opentelemetry/resources/build/src/detectors/platform/node/machine-id/getMachineId.js': {
          format: 'cjs',
          imports: [{ path: 'node_modules/undici/index.js', kind: 'dynamic-import' }],
        },
        'node_modules/undici/index.js': { format: 'cjs', imports: [] },
        'node_modules/esm-only/index.mjs': { format: 'esm', imports: [] },
        'node_modules/pg/lib/index.js': { format: 'cjs', imports: [] },
      },
    };
    assert.deepEqual(dynamicCommonJsImports(metafile), ['test/a.test.ts → node_modules/undici/index.js']);
    assert.deepEqual(dynamicCommonJsImports({ inputs: {} }), []);
  });

  test("bundles sort by name in the order asked for, and a test's dynamic import of a CommonJS package is refused", async (t) => {
    // inside the checkout: the bundles resolve the packages of its node_modules
    const dir = mkdtempSync(path.join(ROOT, 'node_modules', '.cache', 'test-bundles-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const source = (name: string, text: string) => {
      const file = path.join(dir, 'src', name);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
      return path.relative(ROOT, file);
    };
    const zebra = source('zebra.test.ts', "import { request } from 'undici';\nexport const used = typeof request;\n");
    const apple = source('apple.test.ts', 'export const apple = 1;\n');
    const cwd = process.cwd();
    process.chdir(ROOT);
    try {
      const bundles = await bundleTests([zebra, apple], path.join(dir, 'out'));
      assert.deepEqual([...bundles].sort(), bundles, 'the names sort as the files were given (zebra first)');
      assert.match(bundles[0]!, /zebra\.test\.js$/);
      const dynamic = source('dynamic.test.ts', "export const load = async () => (await import('undici')).request;\n");
      await assert.rejects(bundleTests([dynamic], path.join(dir, 'out-dynamic')), /dynamic import\(\) of a CommonJS module.*\n.*dynamic\.test\.ts → node_modules\/undici\/index\.js/);
    } finally {
      process.chdir(cwd);
    }
  });
});
