/**
 * What `npm run bench` compares, from the runs it measured: pure functions over the results, printed and written by
 * bench/run.ts. Every comparison pairs two targets' runs at the same connections and mode.
 */

export const MODES = ['non-stream', 'stream'] as const;
export type Mode = (typeof MODES)[number];
export type TargetName = 'direct' | 'bare-proxy' | 'gateway' | 'gateway+policies' | 'gateway-nolog' | 'gateway-workers';

export interface RunResult {
  target: TargetName;
  connections: number;
  mode: Mode;
  durationSec: number;
  requestsPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMeanMs: number;
  latencyMaxMs: number;
  /** autocannon's own p99, whole milliseconds; kept as a cross-check of the precise figure. */
  autocannonLatencyP99Ms: number;
  completedRequests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** CPU used by the process serving the target during the measured run, % of one core. */
  targetCpuPct: number | null;
  /** CPU time of the target's processes and threads per completed request, in microseconds */
  targetCpuUsPerRequest: number | null;
  /** CPU used by this process (autocannon) during the measured run, % of one core. */
  loadgenCpuPct: number | null;
  targetMaxRssMiB: number | null;
}

/** A plain-text table; the first `left` columns are left-aligned, the rest (numbers) right-aligned. */
export function table(headers: string[], rows: (string | number | null)[][], left: number): string {
  const cells = rows.map((row) => row.map((c) => (c === null ? '-' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]): string => r.map((c, i) => (i < left ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

const ratio = (a: number | undefined, b: number | undefined, places = 3): number | null =>
  a === undefined || b === undefined || b === 0 ? null : Math.round((a / b) * 10 ** places) / 10 ** places;
const difference = (a: number | undefined, b: number | undefined): number | null =>
  a === undefined || b === undefined ? null : Math.round((a - b) * 100) / 100;

/** For each (connections, mode) where both targets ran, the two runs. */
function paired(runs: readonly RunResult[], connectionsList: readonly number[], a: TargetName, b: TargetName) {
  const out: Array<{ connections: number; mode: Mode; a: RunResult; b: RunResult }> = [];
  for (const connections of connectionsList) {
    for (const mode of MODES) {
      const find = (target: TargetName) => runs.find((r) => r.target === target && r.connections === connections && r.mode === mode);
      const first = find(a);
      const second = find(b);
      if (first && second) out.push({ connections, mode, a: first, b: second });
    }
  }
  return out;
}

export interface Ratio {
  connections: number;
  mode: Mode;
  gatewayOverBareRps: number | null;
  gatewayMinusBareP99Ms: number | null;
  gatewayMinusBareP50Ms: number | null;
  gatewayOverDirectRps: number | null;
}

/** The gateway against the bare proxy and against direct. */
export function ratios(runs: readonly RunResult[], connectionsList: readonly number[]): Ratio[] {
  return paired(runs, connectionsList, 'gateway', 'bare-proxy').map(({ connections, mode, a: gw, b: bare }) => {
    const direct = runs.find((r) => r.target === 'direct' && r.connections === connections && r.mode === mode);
    return {
      connections,
      mode,
      gatewayOverBareRps: ratio(gw.requestsPerSec, bare.requestsPerSec),
      gatewayMinusBareP99Ms: difference(gw.latencyP99Ms, bare.latencyP99Ms),
      gatewayMinusBareP50Ms: difference(gw.latencyP50Ms, bare.latencyP50Ms),
      gatewayOverDirectRps: ratio(gw.requestsPerSec, direct?.requestsPerSec),
    };
  });
}

/** The gateway with the two policies against the gateway without them. */
export function policyRatios(runs: readonly RunResult[], connectionsList: readonly number[]) {
  return paired(runs, connectionsList, 'gateway+policies', 'gateway').map(({ connections, mode, a: pol, b: gw }) => ({
    connections,
    mode,
    policiesOverGatewayRps: ratio(pol.requestsPerSec, gw.requestsPerSec),
    policiesMinusGatewayP50Ms: difference(pol.latencyP50Ms, gw.latencyP50Ms),
    policiesMinusGatewayP99Ms: difference(pol.latencyP99Ms, gw.latencyP99Ms),
  }));
}

/** The gateway with its full request log (bodies included) against the same gateway with GATEWAY_REQUEST_LOG=off. */
export function loggingRatios(runs: readonly RunResult[], connectionsList: readonly number[]) {
  return paired(runs, connectionsList, 'gateway', 'gateway-nolog').map(({ connections, mode, a: gw, b: off }) => ({
    connections,
    mode,
    loggedOverUnloggedRps: ratio(gw.requestsPerSec, off.requestsPerSec),
    loggedMinusUnloggedP50Ms: difference(gw.latencyP50Ms, off.latencyP50Ms),
    loggedMinusUnloggedP99Ms: difference(gw.latencyP99Ms, off.latencyP99Ms),
    loggedCpuPct: gw.targetCpuPct,
    unloggedCpuPct: off.targetCpuPct,
  }));
}

/** The gateway on GATEWAY_WORKERS processes against the one-process gateway. */
export function workerScaling(runs: readonly RunResult[], connectionsList: readonly number[]) {
  return paired(runs, connectionsList, 'gateway', 'gateway-workers').map(({ connections, mode, a: one, b: many }) => ({
    connections,
    mode,
    oneRps: Math.round(one.requestsPerSec),
    manyRps: Math.round(many.requestsPerSec),
    scaling: ratio(many.requestsPerSec, one.requestsPerSec, 2),
    oneCpuUs: one.targetCpuUsPerRequest,
    manyCpuUs: many.targetCpuUsPerRequest,
  }));
}
