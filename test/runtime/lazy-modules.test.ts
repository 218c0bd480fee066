/**
 * What a gateway does not load until it is used: the MCP SDK with its zod schemas (~30 MB resident, ~150 ms) comes
 * with the first MCP call, the OpenTelemetry SDK only when tracing is configured, AWS's SigV4 signer with the first call
 * to AWS. A whole gateway is started in a child process with a module-resolution hook that reports every package it
 * resolves.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HOOK = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const at = resolved.url.lastIndexOf('/node_modules/');
  if (at >= 0) process.stderr.write('resolved ' + resolved.url.slice(at + 14) + '\\n');
  return resolved;
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)});`;

test('a gateway starts without loading the MCP SDK, zod, the OpenTelemetry SDK or the AWS signer', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-lazy-'));
  try {
    const run = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--import', 'tsx', 'test/runtime/fixtures/start-and-close.mts'], {
      cwd: ROOT,
      env: { ...process.env, GATEWAY_DATA_DIR: dataDir, OTEL_EXPORTER_OTLP_ENDPOINT: '' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const packages = new Set(run.stderr.split('\n').filter((line) => line.startsWith('resolved ')).map((line) => line.slice(9)));
    assert.ok([...packages].some((file) => file.startsWith('fastify/')), 'the hook saw the gateway load (fastify)');
    const eager = [...packages].filter((file) => /^(@modelcontextprotocol\/sdk\/dist\/esm\/(types|server|client)|zod\/|@opentelemetry\/sdk-trace-base\/|@smithy\/signature-v4\/|@aws-crypto\/sha256-js\/)/.test(file));
    assert.deepEqual(eager, []);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
