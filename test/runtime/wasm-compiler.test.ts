/**
 * GATEWAY_WASM_COMPILER: read from the environment (the older GATEWAY_PGLITE_LIFTOFF too), and applied to V8 as
 * main.ts applies it, checked on a real WebAssembly function in a child process: which compiler made its code when
 * first called, and after it has run hot.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/index.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/wasm-tier.mts', import.meta.url));

function tiers(env: Record<string, string>): { first: string; hot: string } {
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', FIXTURE], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return JSON.parse(out) as { first: string; hot: string };
}

describe('GATEWAY_WASM_COMPILER', () => {
  test('baseline by default; optimizing and tiered on request; the older GATEWAY_PGLITE_LIFTOFF=on reads as tiered', () => {
    assert.equal(loadConfig({}).wasmCompiler, 'baseline');
    assert.equal(loadConfig({ GATEWAY_WASM_COMPILER: 'optimizing' }).wasmCompiler, 'optimizing');
    assert.equal(loadConfig({ GATEWAY_WASM_COMPILER: ' Tiered ' }).wasmCompiler, 'tiered');
    assert.equal(loadConfig({ GATEWAY_PGLITE_LIFTOFF: 'on' }).wasmCompiler, 'tiered');
    assert.equal(loadConfig({ GATEWAY_PGLITE_LIFTOFF: 'on', GATEWAY_WASM_COMPILER: 'baseline' }).wasmCompiler, 'baseline');
  });

  test('any other value stops the start with the variable named', () => {
    assert.throws(() => loadConfig({ GATEWAY_WASM_COMPILER: 'turbofan' }), /GATEWAY_WASM_COMPILER must be one of baseline, optimizing, tiered, got "turbofan"/);
    assert.throws(() => loadConfig({ GATEWAY_PGLITE_LIFTOFF: 'maybe' }), /GATEWAY_PGLITE_LIFTOFF must be on or off/);
  });

  test('baseline: Liftoff compiles the function and it stays Liftoff code however hot it runs', () => {
    const { first, hot } = tiers({});
    assert.deepEqual({ first, hot }, { first: 'liftoff', hot: 'liftoff' });
  });

  test('optimizing: TurboFan compiles the function on its first call', () => {
    assert.equal(tiers({ GATEWAY_WASM_COMPILER: 'optimizing' }).first, 'turbofan');
  });

  test("tiered: V8's default, Liftoff first, then TurboFan once hot", () => {
    const { first, hot } = tiers({ GATEWAY_WASM_COMPILER: 'tiered' });
    assert.deepEqual({ first, hot }, { first: 'liftoff', hot: 'turbofan' });
  });
});
