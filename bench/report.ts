/**
 * What `npm run bench` prints after its runs: every run, the gateway against the bare proxy and direct, and the
 * comparisons of one gateway configuration with another (policies, request log, workers).
 */
import { loggingRatios, policyRatios, type ratios, table, workerScaling, type RunResult } from './comparisons.ts';

type Ratios = ReturnType<typeof ratios>;

/** Prints the tables after the runs; returns the comparisons for results.json. */
export function printResults(runs: RunResult[], rat: Ratios, connections: readonly number[], workers: number) {
  console.log('\nresults (req/s = autocannon mean of per-second samples; latency is time to the full response):\n');
  console.log(
    table(
      ['target', 'conns', 'mode', 'req/s', 'p50 ms', 'p99 ms', 'non2xx', 'errors', 'target CPU%', 'CPU µs/req', 'loadgen CPU%', 'max RSS MiB'],
      runs.map((r) => [
        r.target,
        r.connections,
        r.mode,
        r.requestsPerSec.toFixed(0),
        r.latencyP50Ms.toFixed(2),
        r.latencyP99Ms.toFixed(2),
        r.non2xx,
        r.errors + r.timeouts,
        r.targetCpuPct,
        r.targetCpuUsPerRequest,
        r.loadgenCpuPct,
        r.targetMaxRssMiB,
      ]),
      3,
    ),
  );
  console.log('\nratios:\n');
  console.log(
    table(
      ['conns', 'mode', 'gw/bare req/s', 'gw-bare p99 ms', 'gw-bare p50 ms', 'gw/direct req/s'],
      rat.map((x) => [x.connections, x.mode, x.gatewayOverBareRps, x.gatewayMinusBareP99Ms, x.gatewayMinusBareP50Ms, x.gatewayOverDirectRps]),
      2,
    ),
  );
  const withLimits = policyRatios(runs, connections);
  if (withLimits.length > 0) {
    console.log('\npolicies (one rate limits policy and one usage limits policy on the bench key, vs none; target >= 0.9):\n');
    console.log(
      table(
        ['conns', 'mode', 'gw+policies/gw req/s', 'gw+policies-gw p50 ms', 'gw+policies-gw p99 ms'],
        withLimits.map((x) => [x.connections, x.mode, x.policiesOverGatewayRps, x.policiesMinusGatewayP50Ms, x.policiesMinusGatewayP99Ms]),
        2,
      ),
    );
  }
  const logging = loggingRatios(runs, connections);
  if (logging.length > 0) {
    console.log('\nrequest log (the gateway storing every row with its bodies, vs a gateway with GATEWAY_REQUEST_LOG=off; target >= 0.9):\n');
    console.log(
      table(
        ['conns', 'mode', 'gw/gw-nolog req/s', 'gw-nolog p50 ms', 'gw-nolog p99 ms', 'gw CPU%', 'gw-nolog CPU%'],
        logging.map((x) => [x.connections, x.mode, x.loggedOverUnloggedRps, x.loggedMinusUnloggedP50Ms, x.loggedMinusUnloggedP99Ms, x.loggedCpuPct, x.unloggedCpuPct]),
        2,
      ),
    );
  }
  const scaling = workerScaling(runs, connections);
  if (scaling.length > 0) {
    console.log(`\nworkers (GATEWAY_WORKERS=${workers} against one process; the load generator and the mock share this machine's cores):\n`);
    console.log(
      table(
        ['conns', 'mode', '1 process req/s', `${workers} workers req/s`, 'scaling', '1 process µs/req', `${workers} workers µs/req`],
        scaling.map((x) => [x.connections, x.mode, x.oneRps, x.manyRps, x.scaling, x.oneCpuUs, x.manyCpuUs]),
        2,
      ),
    );
  }
  for (const x of rat.filter((x) => x.connections === 16)) {
    console.log(
      `\nheadline (16 connections, ${x.mode}): gateway/bare-proxy throughput ${x.gatewayOverBareRps ?? '-'}, ` +
        `p99 gateway - bare proxy ${x.gatewayMinusBareP99Ms ?? '-'} ms, gateway/direct throughput ${x.gatewayOverDirectRps ?? '-'}`,
    );
  }
  return { withLimits, logging, scaling };
}
