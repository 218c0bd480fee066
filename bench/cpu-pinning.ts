/**
 * Where the benchmarks' processes run: the load generator (the harness itself, autocannon runs in it) and the mock
 * upstream on the first CPUs, the processes measured (the bare proxy and the gateways, every thread) on the others,
 * so the figures of a process measured are not those of its load generator competing with it for a core. Linux's
 * affinity through `taskset` (util-linux), which execs the command: the child's pid and process group stay those of
 * the process measured.
 *
 * BENCH_PIN: `auto` (the default) pins on a machine of four CPUs or more; `on` pins on two or more; `off` never pins.
 * With fewer than four CPUs the default leaves every process free: the process measured would get a single core for
 * its main thread, its embedded database's thread and V8's collector threads, while a deployment's gateway shares the
 * machine's cores among them (on this repository's 2-core VM, pinned, the one-connection first-token p99 added over
 * the bare proxy went from ~1 ms to 3.2 ms: docs/performance.md). The reason is printed when nothing is pinned,
 * `taskset` missing or refused included.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export type CpuRole = 'load' | 'measured';

export interface CpuPlan {
  /** CPU lists as taskset takes them ("0", "1-3") */
  load: string;
  measured: string;
}

/** The CPUs this process may run on, from the kernel's `Cpus_allowed_list` ("0-3,6"); empty when unreadable. */
export function allowedCpus(status = readStatus()): number[] {
  const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1];
  if (!list) return [];
  const cpus: number[] = [];
  for (const part of list.split(',')) {
    const [from, to] = part.split('-').map(Number);
    if (!Number.isInteger(from)) return [];
    for (let cpu = from!; cpu <= (to ?? from!); cpu += 1) cpus.push(cpu);
  }
  return cpus;
}

function readStatus(): string {
  try {
    return fs.readFileSync('/proc/self/status', 'utf8');
  } catch {
    return '';
  }
}

/** The load side gets a quarter of the CPUs (at least one), the processes measured the rest. */
export function splitCpus(cpus: readonly number[]): CpuPlan | null {
  if (cpus.length < 2) return null;
  const loadCount = Math.max(1, Math.floor(cpus.length / 4));
  return { load: cpus.slice(0, loadCount).join(','), measured: cpus.slice(loadCount).join(',') };
}

let decided: { plan: CpuPlan | null; why: string } | undefined;

/** The plan for this run (decided once), and why there is none when there is none. */
export function cpuPlan(): { plan: CpuPlan | null; why: string } {
  if (decided) return decided;
  const mode = (process.env.BENCH_PIN ?? 'auto').toLowerCase();
  if (!['auto', 'on', 'off'].includes(mode)) throw new Error(`BENCH_PIN must be auto, on or off, got "${process.env.BENCH_PIN}"`);
  if (mode === 'off') return (decided = { plan: null, why: 'none (BENCH_PIN=off)' });
  const cpus = allowedCpus();
  if (mode === 'auto' && cpus.length < 4) {
    return (decided = { plan: null, why: `none (${cpus.length} CPUs: the process measured would get one core for all its threads; BENCH_PIN=on pins anyway)` });
  }
  const plan = splitCpus(cpus);
  if (!plan) return (decided = { plan: null, why: 'none (fewer than two CPUs to run on)' });
  // pins this process (every thread it has; threads started later inherit it): it is the load generator
  const self = spawnSync('taskset', ['-a', '-p', '-c', plan.load, String(process.pid)], { encoding: 'utf8' });
  if (self.error || self.status !== 0) {
    return (decided = { plan: null, why: `none (taskset unavailable: ${self.error?.message ?? self.stderr.trim()})` });
  }
  return (decided = { plan, why: `load generator and mock on CPU ${plan.load}, processes measured on CPU ${plan.measured}` });
}

/** The command line that runs `command` on its role's CPUs in `plan` (unchanged without a plan). */
export function commandOnCpus(plan: CpuPlan | null, role: CpuRole, command: string, args: readonly string[]): { command: string; args: string[] } {
  if (!plan) return { command, args: [...args] };
  return { command: 'taskset', args: ['-c', plan[role], command, ...args] };
}

/** The command line that runs `command` on its role's CPUs in this run's plan. */
export function onCpus(role: CpuRole, command: string, args: readonly string[]): { command: string; args: string[] } {
  return commandOnCpus(cpuPlan().plan, role, command, args);
}
