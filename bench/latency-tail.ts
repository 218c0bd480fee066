/**
 * The latency tail at one connection, over a process's life: starts the compiled gateway and the bench's mock,
 * sends TAIL_REQUESTS chat requests one after another (after 300 discarded), JSON then stream, and prints the
 * percentiles and how many requests of each 500 took over TAIL_SLOW_MS (first token for a stream). Shows whether a
 * tail comes from a fresh process's compilation (early windows) or from steady work (every window).
 *
 * Run: node --import tsx bench/latency-tail.ts
 * Env: TAIL_REQUESTS (default 6000), TAIL_SLOW_MS (default 1.5), GATEWAY_* / DATABASE_URL pass through to the gateway
 *      (e.g. GATEWAY_REQUEST_LOG=off).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'undici';
import { ensureBuilt } from './build.ts';
import { once, percentile } from './latency.ts';
import { makeChatRequest } from './shared.ts';
import { benchHeaders, startCompiled, startMock } from './startup.ts';

const REQUESTS = Number(process.env.TAIL_REQUESTS ?? 6000);
const SLOW_MS = Number(process.env.TAIL_SLOW_MS ?? 1.5);
const DISCARDED = 300;
const WINDOW = 500;

async function run(name: string, url: string, headers: Record<string, string>, stream: boolean): Promise<void> {
  const target = { name, url, headers };
  const client = new Client(new URL(url).origin, { pipelining: 1 });
  const body = JSON.stringify(makeChatRequest(stream));
  const samples: number[] = [];
  const slow = new Array<number>(Math.ceil(REQUESTS / WINDOW)).fill(0);
  try {
    for (let index = 0; index < DISCARDED + REQUESTS; index += 1) {
      const ms = await once(client, target, body, stream);
      if (index < DISCARDED) continue;
      samples.push(ms);
      if (ms > SLOW_MS) slow[Math.floor((index - DISCARDED) / WINDOW)]! += 1;
    }
  } finally {
    await client.close();
  }
  samples.sort((a, b) => a - b);
  const at = (p: number) => percentile(samples, p).toFixed(3);
  console.log(`${name.padEnd(8)} ${stream ? 'first token' : 'JSON       '}  p50 ${at(50)}  p99 ${at(99)}  p99.9 ${at(99.9)} ms;  over ${SLOW_MS} ms per ${WINDOW}: ${slow.join(' ')}`);
}

async function main(): Promise<void> {
  ensureBuilt();
  const mock = await startMock();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-tail-'));
  try {
    const gateway = await startCompiled(dataDir, { GATEWAY_CUSTOM_HOST_ALLOWLIST: '127.0.0.1' });
    try {
      const direct = `http://127.0.0.1:${mock.port}/v1/chat/completions`;
      const through = `http://127.0.0.1:${gateway.port}/v1/chat/completions`;
      for (const stream of [false, true]) {
        await run('direct', direct, { 'content-type': 'application/json', authorization: 'Bearer sk-bench' }, stream);
        await run('gateway', through, benchHeaders('startup-bench-admin-key-0123456789', mock.port), stream);
      }
    } finally {
      await gateway.stop();
    }
  } finally {
    await mock.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
