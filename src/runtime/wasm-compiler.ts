/**
 * V8's compilers for the WebAssembly the gateway runs: the embedded database (PGlite, ~9 MB of PostgreSQL) on its
 * thread, and undici's HTTP parser (llhttp) for every upstream answer. V8's default compiles each function with
 * Liftoff, its baseline compiler, when first called, then the hot ones again with TurboFan on a background thread,
 * and keeps both. Measured on the compiled gateway (docs/performance.md, "One bundle"):
 * - TurboFan's compilation of llhttp's parser, the first time it is hot, takes ~35 MB of compiler memory for ~150
 *   ms: the process's peak under load on PostgreSQL (161 → 146-149 MiB without it);
 * - PGlite opens in ~0.45 s with Liftoff only, ~0.5 s with both, ~2.4 s with TurboFan only (each function compiled
 *   on first call, on the calling thread); it holds ~60 MB less with Liftoff only than with both;
 * - Liftoff's code costs the embedded database's thread ~40% more CPU a logged row than TurboFan's; the request path
 *   measured the same either way (llhttp's share of a request is small).
 * So the default is `baseline`; `optimizing` suits a node that stores many rows a second on the embedded database.
 * The flags are process-wide (V8 has none per thread or per module) and concern WebAssembly only; they are set
 * before any module is compiled (main.ts, first thing). The tests, which build gateways in their own process,
 * keep V8's default.
 */
import v8 from 'node:v8';
import type { WasmCompiler } from '../config/index.ts';

const FLAGS: Record<WasmCompiler, string | undefined> = {
  baseline: '--liftoff-only',
  optimizing: '--no-liftoff',
  tiered: undefined,
};

export function applyWasmCompiler(compiler: WasmCompiler): void {
  const flag = FLAGS[compiler];
  if (flag) v8.setFlagsFromString(flag);
}
