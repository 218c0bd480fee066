/**
 * A bench target's resident memory and CPU time from /proc (Linux; null elsewhere): the process with its threads
 * and its descendants (a cluster's workers).
 */
import fs from 'node:fs';

const CLK_TCK = 100; // USER_HZ; 100 on every mainstream Linux build

/** Resident memory of a process and its descendants (a cluster's workers), in KiB. */
export function procStatusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  let total: number | null = null;
  for (const each of field === 'VmRSS' ? processTree(pid) : [pid]) {
    try {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${each}/status`, 'utf8'));
      if (m) total = (total ?? 0) + Number(m[1]);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** The process and its descendants (a cluster's primary and its workers): all of a target's threads and processes. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let index = 0; index < tree.length; index += 1) {
    try {
      for (const task of fs.readdirSync(`/proc/${tree[index]}/task`)) {
        const children = fs.readFileSync(`/proc/${tree[index]}/task/${task}/children`, 'utf8').trim();
        if (children) tree.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // gone meanwhile
    }
  }
  return tree;
}

/** utime + stime of a process and its descendants (every thread of each), in seconds. */
export function procCpuSeconds(pid: number): number | null {
  let total = 0;
  for (const each of processTree(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${each}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // after "pid (comm) ", field index 0 is state (3rd field); utime is the 14th field, stime the 15th
      total += (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
    } catch {
      if (each === pid) return null;
    }
  }
  return total;
}

export const mib = (kib: number | null): number | null => (kib === null ? null : Math.round((kib / 1024) * 10) / 10);

export class RssSampler {
  maxKiB: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly pid: number | undefined) {}
  start(): void {
    if (this.pid === undefined) return;
    this.sample();
    this.timer = setInterval(() => this.sample(), 250);
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.sample();
  }
  private sample(): void {
    if (this.pid === undefined) return;
    const kib = procStatusKiB(this.pid, 'VmRSS');
    if (kib !== null && (this.maxKiB === null || kib > this.maxKiB)) this.maxKiB = kib;
  }
}
