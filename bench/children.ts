/**
 * The child processes of the bench harnesses (bench/run.ts, startup.ts, memory.ts, profile.ts, latency-tail.ts):
 * each starts in a process group of its own and is stopped by that group, so a gateway's cluster workers go with
 * it. Every child still running is stopped when the harness ends: on success, on an error, on Ctrl-C (SIGINT) or
 * SIGTERM, and on exit (SIGKILL then). A port is taken only once the kernel says it is free.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onCpus, type CpuRole } from './cpu-pinning.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));

/** An expected failure (bad setup, failed smoke check): reported without a stack trace. */
export class BenchError extends Error {}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface Child {
  name: string;
  proc: ChildProcess;
  pid: number;
  logFile?: string;
  /** settles once the process has exited (or failed to start) */
  exited: Promise<void>;
  /** SIGTERM to the child's process group, SIGKILL after `graceMs`; settles once the child has exited */
  stop(graceMs?: number): Promise<void>;
}

const children: Child[] = [];
const beforeStop: Array<() => void> = [];
const atExit: Array<() => void> = [];
let handlersInstalled = false;
let shuttingDown = false;

export function alive(proc: ChildProcess): boolean {
  return proc.exitCode === null && proc.signalCode === null;
}

/** Signals the child's whole process group (its workers too); a group already gone is no error. */
function signalGroup(child: Child, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group has no process left
  }
}

async function stopChild(child: Child, graceMs: number): Promise<void> {
  signalGroup(child, 'SIGTERM');
  await Promise.race([child.exited, sleep(graceMs)]);
  signalGroup(child, 'SIGKILL');
  await child.exited;
}

/** Runs `hook` before the children are stopped (e.g. the load generator's current run). */
export function onBeforeStop(hook: () => void): void {
  beforeStop.push(hook);
}

/** Runs `hook` when the harness exits, whatever the reason (synchronous work only: temp dirs, pid files). */
export function onExit(hook: () => void): void {
  installHandlers();
  atExit.push(hook);
}

/** Stops every child started by this harness: SIGTERM to each group, SIGKILL to what is left after 3 s. */
export async function stopAll(): Promise<void> {
  for (const hook of beforeStop) hook();
  await Promise.all(children.map((child) => stopChild(child, 3000)));
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => {
    for (const child of children) signalGroup(child, 'SIGKILL');
    for (const hook of atExit) hook();
  });
  const onSignal = (signal: NodeJS.Signals, code: number): void => {
    if (shuttingDown) process.exit(code); // a second Ctrl-C: the exit handler SIGKILLs every group
    shuttingDown = true;
    console.error(`\n${signal}: stopping child processes...`);
    void stopAll().finally(() => process.exit(code));
  };
  process.on('SIGINT', () => onSignal('SIGINT', 130));
  process.on('SIGTERM', () => onSignal('SIGTERM', 143));
}

/**
 * Spawns a child in a process group of its own, tracked until the harness ends, on the CPUs of its role
 * (cpu-pinning.ts): `measured` for the processes whose figures are taken, `load` for the mock.
 */
export function spawnChild(name: string, command: string, args: string[], options: SpawnOptions & { logFile?: string; cpus: CpuRole }): Child {
  installHandlers();
  const { logFile, cpus, ...spawnOptions } = options;
  const line = onCpus(cpus, command, args);
  const proc = spawn(line.command, line.args, { ...spawnOptions, detached: true });
  const exited = new Promise<void>((resolve) => {
    proc.once('exit', () => resolve());
    proc.once('error', () => resolve());
  });
  const child: Child = { name, proc, pid: proc.pid ?? -1, exited, stop: (graceMs = 3000) => stopChild(child, graceMs) };
  if (logFile !== undefined) child.logFile = logFile;
  children.push(child);
  return child;
}

/** Spawns one of the bench/*.ts helpers and waits for the {"port":N} line it prints once listening (bounded: 30 s). */
export function startHelper(name: string, script: string, args: string[] = [], cpus: CpuRole = 'load'): Promise<Child & { port: number }> {
  const child = spawnChild(name, process.execPath, ['--import', 'tsx', path.join(BENCH_DIR, script), ...args], {
    cpus,
    cwd: ROOT,
    env: { ...process.env, BENCH_EXIT_ON_STDIN_END: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const { proc } = child;
  return new Promise((resolve, reject) => {
    let buf = '';
    let done = false;
    const timer = setTimeout(() => finish(new BenchError(`${name}: no port announced within 30 s`)), 30_000);
    function finish(err: Error | null, port?: number): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(Object.assign(child, { port: port! }));
    }
    proc.stdout!.on('data', (chunk: Buffer) => {
      if (done) return; // keep draining so the child never blocks on a full pipe
      buf += chunk.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl === -1) return;
      try {
        const port = (JSON.parse(buf.slice(0, nl)) as { port?: unknown }).port;
        if (typeof port !== 'number') throw new Error('no numeric "port"');
        finish(null, port);
      } catch (err) {
        finish(new BenchError(`${name}: bad announce line ${JSON.stringify(buf.slice(0, nl))}: ${(err as Error).message}`));
      }
    });
    proc.once('error', (err) => finish(err));
    proc.once('exit', (code, signal) => finish(new BenchError(`${name} exited early (code ${code}, signal ${signal})`)));
  });
}

/** A port the kernel reports free on 127.0.0.1 (the child that takes it fails loudly if it was taken meanwhile). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The last lines of a child's log file, for an error message. */
export function tail(file: string | undefined, lines = 40): string {
  if (!file) return '';
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
