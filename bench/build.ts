/**
 * The benchmarks measure the compiled gateway (`node dist/main.js`, as `npm start` runs it): ensureBuilt() runs
 * `npm run build` when dist/ is missing or older than any source file, migration or build setting.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseStartScript, startCommand } from '../scripts/start-command.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const COMPILED_MAIN = path.join(ROOT, 'dist', 'main.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (!entry.name.endsWith('.test.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

export function isStale(): boolean {
  if (!fs.existsSync(COMPILED_MAIN)) return true;
  const built = fs.statSync(COMPILED_MAIN).mtimeMs;
  const inputs = [path.join(ROOT, 'package.json'), path.join(ROOT, 'tsconfig.json'), path.join(ROOT, 'scripts', 'build.mjs')];
  const newestInput = Math.max(newestMtime(path.join(ROOT, 'src')), ...inputs.map((file) => fs.statSync(file).mtimeMs));
  return newestInput > built;
}

/** Builds dist/ if it is missing or stale; throws when the build fails. */
export function ensureBuilt(): string {
  if (!isStale()) return COMPILED_MAIN;
  console.log('dist/ is missing or older than src/: npm run build');
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`npm run build failed (exit ${result.status ?? result.signal})`);
  return COMPILED_MAIN;
}

/**
 * The environment of a gateway a benchmark starts: one process on 127.0.0.1:`port`, its own data dir, the given
 * admin key, quiet logs; `extra` last (GATEWAY_* settings to compare).
 */
export function gatewayEnv(port: number, dataDir: string, adminKey: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...startEnv(),
    PORT: String(port),
    HOST: '127.0.0.1',
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_WORKERS: '1',
    GATEWAY_ADMIN_API_KEY: adminKey,
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/**
 * The node/V8 flags `npm start` passes (package.json's start script), so the benchmarks run the gateway as it does;
 * BENCH_NODE_FLAGS instead: other flags to compare ("" for V8's defaults).
 */
export function startFlags(): string[] {
  if (process.env.BENCH_NODE_FLAGS !== undefined) return process.env.BENCH_NODE_FLAGS.split(' ').filter(Boolean);
  return startCommand().flags;
}

/**
 * The variables `npm start` sets before node (glibc's malloc settings, read only when a process starts);
 * BENCH_START_ENV instead: other assignments to compare ("" for none, "NAME=value ..." otherwise).
 */
export function startEnv(): Record<string, string> {
  if (process.env.BENCH_START_ENV !== undefined) return parseStartScript(`${process.env.BENCH_START_ENV} node x`).env;
  return startCommand().env;
}
