/**
 * Process entry: read the config, then run the server. With GATEWAY_WORKERS above 1 this process is the cluster
 * primary (runtime/cluster/primary.ts): it forks the server processes, which share the port, and owns what they
 * must share when no external service is set (the embedded database, the in-process store).
 */
import cluster from 'node:cluster';
import { loadConfig } from './config/index.ts';
import { applyWasmCompiler } from './runtime/wasm-compiler.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  process.stderr.write(`the gateway cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
// before anything compiles WebAssembly (the embedded database, undici's parser): V8's flags are process-wide
applyWasmCompiler(config.wasmCompiler);

if (config.workers > 1 && cluster.isPrimary) {
  const { runPrimary } = await import('./runtime/cluster/primary.ts');
  await runPrimary(config);
} else {
  const { runServer } = await import('./runtime/server.ts');
  await runServer(config);
}
