#!/usr/bin/env node
// Runs every *.test.ts under test/ and src/ with node's test runner (explicit file list: a glob or a directory
// argument can silently run nothing) and fails when no test ran. The files run as esbuild bundles
// (scripts/test-bundle.mjs), made for this run in node_modules/.cache and removed after it.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleTests } from './test-bundle.mjs';

function find(dir) {
  let files = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) files = files.concat(find(full));
    else if (entry.endsWith('.test.ts')) files.push(full);
  }
  return files;
}

/** A run killed with SIGKILL cannot remove its bundles: a later run removes those of runners no longer alive. */
function removeOrphanedBundles(root) {
  let entries = [];
  try {
    entries = readdirSync(root);
  } catch {
    return; // no run has bundled here yet
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || isAlive(pid)) continue;
    rmSync(path.join(root, entry), { recursive: true, force: true });
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM'; // alive, another user's
  }
}

/**
 * The files that took longest (15 s and more each, most of them starting gateway processes or filling a database),
 * started first: in name order they came last (test/runtime/, test/storage.test.ts), and the run ended on one of
 * them alone while the other slot stood idle. Node's runner runs its files in name order whatever order it is given
 * them, so test-bundle.mjs names each bundle after its place in the list.
 */
const SLOW_FIRST = [
  'test/admin/log-exports.test.ts',
  'test/storage.test.ts',
  'test/runtime/redis-restart.test.ts',
  'test/runtime/rolling-restart.test.ts',
  'test/admin/authorization-matrix.test.ts',
  'test/e2e/rate-limits-multi-node.test.ts',
  'test/admin/providers-two-processes.test.ts',
  'test/e2e/budgets-multi-node.test.ts',
  'test/console/console.test.ts',
  'test/runtime/compiled-build.test.ts',
  'test/runtime/cluster.test.ts',
  'test/runtime/pglite-template.test.ts',
  'test/runtime/migrations.test.ts',
  'test/fuzz/fuzz.test.ts',
];
const rank = (file) => {
  const at = SLOW_FIRST.indexOf(file.split(path.sep).join('/'));
  return at < 0 ? SLOW_FIRST.length : at;
};

const filter = process.argv.slice(2);
let files = [...find('test'), ...find('src')].sort();
if (filter.length > 0) files = files.filter((file) => filter.some((part) => file.includes(part)));
files.sort((a, b) => rank(a) - rank(b)); // stable: the rest stay in name order
for (const file of SLOW_FIRST) if (filter.length === 0 && !existsSync(file)) console.error(`run-tests: SLOW_FIRST names ${file}, which is gone`);
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}

// One embedded database, initdb'd and migrated, dumped once: every in-memory test gateway starts from it
// (test/helpers/gateway.ts) instead of running initdb, ~3 s of CPU each. Made while the test files are bundled.
const seedDir = mkdtempSync(path.join(tmpdir(), 'gateway-test-seed-'));
const seed = path.join(seedDir, 'pglite.tar');
const seedMade = new Promise((resolve) => {
  spawn(process.execPath, ['--import', 'tsx', 'scripts/test-seed.ts', seed], { stdio: 'inherit' }).on('close', (status, signal) =>
    resolve(status === 0 ? undefined : `the tests' database seed could not be made (exit ${status ?? signal})`),
  );
});
// inside the checkout, so that the bundles find its node_modules
const bundlesRoot = path.resolve('node_modules', '.cache', 'gateway-tests');
const bundleDir = path.join(bundlesRoot, String(process.pid));
removeOrphanedBundles(bundlesRoot);
const bundled = bundleTests(files, bundleDir).then(
  (bundles) => ({ bundles }),
  (error) => ({ failure: `the test files could not be bundled: ${error instanceof Error ? error.message : error}` }),
);
const [seedFailure, { bundles, failure }] = await Promise.all([seedMade, bundled]);
if (seedFailure || failure) {
  rmSync(seedDir, { recursive: true, force: true });
  rmSync(bundleDir, { recursive: true, force: true });
  console.error(`run-tests: ${seedFailure ?? failure}`);
  process.exit(1);
}

// --liftoff-only: the test processes compile the embedded database's WebAssembly as `npm start` does (Liftoff only,
// src/runtime/wasm-compiler.ts); with V8's default each process also re-compiled PostgreSQL's hot functions with
// TurboFan, ~2 s of CPU a gateway for code a short test file never runs long enough to gain from. The test runner
// passes its V8 flags on to the test files' processes; processes the tests spawn choose their own.
const child = spawn(
  process.execPath,
  ['--liftoff-only', '--enable-source-maps', '--test', '--test-reporter=tap', '--test-concurrency=2', ...bundles],
  { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, GATEWAY_TEST_PGLITE_SEED: seed } },
);
// Ctrl-C or a SIGTERM: the runner stops its test processes and removes the seed on its way out (the close below)
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString()).slice(-4000);
});
child.on('close', (code) => {
  rmSync(seedDir, { recursive: true, force: true });
  rmSync(bundleDir, { recursive: true, force: true });
  const tests = /# tests (\d+)/.exec(tail);
  const pass = /# pass (\d+)/.exec(tail);
  const fail = /# fail (\d+)/.exec(tail);
  // a test that timed out is counted as cancelled, not failed (node's runner): said, and the exit code says it too
  const cancelled = /# cancelled (\d+)/.exec(tail);
  if (!tests || Number(tests[1]) === 0) {
    console.error('run-tests: no test ran');
    process.exit(1);
  }
  console.log(`${pass ? pass[1] : 0} passed, ${fail ? fail[1] : 0} failed${cancelled && cancelled[1] !== '0' ? `, ${cancelled[1]} cancelled (timed out)` : ''}`);
  process.exit(code ?? 1);
});
