/**
 * The gateways `npm run bench` starts: the compiled build as `npm start` runs it, each on a fresh temporary data
 * dir, in a process group of its own (bench/children.ts). Their pids and data dirs go to .bench/gateway.pid.json, so
 * a later run can stop a gateway that an earlier run, killed with SIGKILL, could not.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, gatewayEnv, ROOT, startFlags } from './build.ts';
import { alive, BenchError, type Child, freePort, onExit, sleep, spawnChild, tail } from './children.ts';

export const OUT_DIR = path.join(ROOT, '.bench');
const GATEWAY_PID_FILE = path.join(OUT_DIR, 'gateway.pid.json');

/** Gateways started by this run, with their data dirs: written to GATEWAY_PID_FILE so a later run can reap them. */
const started: Array<{ pid: number; dataDir: string }> = [];

/**
 * The helpers exit by themselves when the orchestrator dies (their stdin closes), but a gateway cannot be told to,
 * so if a previous run was SIGKILLed its gateway may still be running. A recorded process is stopped only if it is
 * still that bench gateway (same pid, command line running dist/main.js, environment pointing at the recorded data dir).
 */
function reapStaleGateways(): void {
  let recorded: unknown;
  try {
    recorded = JSON.parse(fs.readFileSync(GATEWAY_PID_FILE, 'utf8'));
  } catch {
    return;
  }
  fs.rmSync(GATEWAY_PID_FILE, { force: true });
  for (const stale of Array.isArray(recorded) ? recorded : [recorded]) reapStaleGateway(stale as { pid?: unknown; dataDir?: unknown });
}

function reapStaleGateway(stale: { pid?: unknown; dataDir?: unknown }): void {
  if (typeof stale.pid !== 'number' || typeof stale.dataDir !== 'string') return;
  try {
    const cmdline = fs.readFileSync(`/proc/${stale.pid}/cmdline`, 'utf8');
    const environ = fs.readFileSync(`/proc/${stale.pid}/environ`, 'utf8').split('\0');
    if (cmdline.includes(path.join('dist', 'main.js')) && environ.includes(`GATEWAY_DATA_DIR=${stale.dataDir}`)) {
      process.kill(-stale.pid, 'SIGKILL'); // its process group: a cluster's workers too
      console.log(`stopped a gateway left running by an earlier, killed bench run (pid ${stale.pid})`);
    }
  } catch {
    // not running any more (or not ours to inspect)
  }
  fs.rmSync(stale.dataDir, { recursive: true, force: true });
}

function forgetGateways(): void {
  for (const { dataDir } of started) fs.rmSync(dataDir, { recursive: true, force: true });
  if (started.length > 0) fs.rmSync(GATEWAY_PID_FILE, { force: true });
}

/** Starts a gateway (`name` also names its log file in .bench/) and resolves once /health answers 200 (bounded: 60 s). */
export async function startGateway(name: string, adminKey: string, extraEnv: Record<string, string> = {}): Promise<{ url: string; pid: number; child: Child }> {
  if (started.length === 0) {
    reapStaleGateways();
    onExit(forgetGateways);
  }
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-'));
  const logFile = path.join(OUT_DIR, `${name}.log`);
  const logFd = fs.openSync(logFile, 'w');
  const child = spawnChild(name, process.execPath, [...startFlags(), ensureBuilt()], {
    cpus: 'measured',
    cwd: ROOT,
    env: gatewayEnv(port, dataDir, adminKey, { GATEWAY_CUSTOM_HOST_ALLOWLIST: '127.0.0.1', ...extraEnv }),
    stdio: ['ignore', logFd, logFd],
    logFile,
  });
  fs.closeSync(logFd);
  started.push({ pid: child.pid, dataDir });
  fs.writeFileSync(GATEWAY_PID_FILE, JSON.stringify(started));
  const url = `http://127.0.0.1:${port}`;

  let spawnError: Error | undefined;
  child.proc.once('error', (err) => (spawnError = err));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (spawnError) throw spawnError;
    if (!alive(child.proc)) {
      throw new BenchError(
        `gateway exited before /health answered (code ${child.proc.exitCode}, signal ${child.proc.signalCode}). ` +
          `Last lines of ${logFile}:\n${tail(logFile)}`,
      );
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new BenchError(`gateway /health did not answer 200 within 60 s. Last lines of ${logFile}:\n${tail(logFile)}`);
    }
    await sleep(100);
  }
  return { url, pid: child.pid, child };
}
