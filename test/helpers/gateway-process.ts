/**
 * Gateway processes for multi-node tests: `src/main.ts` started as deployed, each in its own process group (stopped
 * by it), on a free port, ready once /health answers; and TCP proxies to Redis or PostgreSQL that a test can shut
 * and open again to take the service away from the nodes and give it back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startCommand } from '../../scripts/start-command.ts';
import { TEST_ADMIN_KEY, TEST_ENCRYPTION_KEY } from './gateway.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Node {
  baseURL: string;
  origin: string;
  /** the process started (with GATEWAY_WORKERS above 1: the cluster primary) */
  pid: number;
  port: number;
  stop(): Promise<void>;
}

export interface NodeOptions {
  /** listen on this port, e.g. a restart where a load balancer expects the node; a free port otherwise */
  port?: number;
  /** everything the process writes to stdout (its log lines), as it comes */
  onStdout?: (text: string) => void;
  /** node's arguments: the sources through tsx by default; compiledStart() runs the build as `npm start` does */
  command?: string[];
  /** start on this data dir, kept when the node stops (a restart); a fresh one removed at stop by default */
  dataDir?: string;
}

/** `npm start`'s command (package.json): the environment it sets, and node's arguments (its flags, then dist/main.js). */
export function compiledStart(): { env: Record<string, string>; command: string[] } {
  const start = startCommand();
  return { env: start.env, command: [...start.flags, start.entry] };
}

/** A gateway process of its own (its own process group, stopped by it), ready once /health answers. */
export async function startNode(env: Record<string, string>, options: NodeOptions = {}): Promise<Node> {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'gw-node-'));
  const child: ChildProcess = spawn(process.execPath, options.command ?? ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', options.onStdout ? 'pipe' : 'ignore', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_WORKERS: '1',
      GATEWAY_ADMIN_API_KEY: TEST_ADMIN_KEY,
      GATEWAY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      GATEWAY_CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
      LOG_LEVEL: 'error',
      ...env,
    },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (options.onStdout) child.stdout!.on('data', (chunk: Buffer) => options.onStdout!(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
    await exited;
    if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  };
  // a process start has no event to wait on from outside: poll its liveness route, bounded
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`the gateway process exited: ${stderr}`);
    try {
      const health = await request(`${origin}/health`);
      await health.body.dump();
      if (health.statusCode === 200) return { baseURL: `${origin}/v1`, origin, pid: child.pid!, port, stop };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`the gateway process did not start: ${stderr}`);
}

/** A TCP proxy to Redis that can be shut (every connection cut, new ones refused) and opened again on the same port. */
export async function redisProxy(target: URL) {
  const proxy = await tcpProxy(target.hostname, Number(target.port || 6379));
  return { url: `redis://127.0.0.1:${proxy.port}`, open: proxy.open, shut: proxy.shut };
}

/** A TCP proxy to a PostgreSQL database: its URL through the proxy, and the same shut / open. */
export async function postgresProxy(target: URL) {
  const proxy = await tcpProxy(target.hostname, Number(target.port || 5432));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { url: url.toString(), open: proxy.open, shut: proxy.shut };
}

/** A TCP proxy that can be shut (every connection cut, new ones refused) and opened again on the same port. */
export async function tcpProxy(host: string, targetPort: number) {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const open = async () => {
    server = net.createServer((client) => {
      const upstream = net.connect(targetPort, host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
  };
  const shut = async () => {
    const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  await open();
  return { port, open, shut };
}
