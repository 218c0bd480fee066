/**
 * The embedded database's thread restarted when the gateway has been idle, so a process that served load goes back
 * to its idle memory. PostgreSQL in PGlite runs in WebAssembly memory, which only grows: the buffer pool's pages and
 * the statements' memory touched under load stay resident for the life of the thread (~14 MiB after the bench's
 * load, docs/performance.md). A new thread on the same files starts from what a fresh start holds.
 *
 * The restart waits in the client's line like any call, so it never cuts into a statement or a transaction; calls
 * made meanwhile wait for it (the thread's start, ~0.7-1.2 s of wall time). It runs only when no call has been made
 * for `idleMs` and the thread has served at least `minCalls` since it started (a thread that did little holds little):
 * at most one restart for every `minCalls` calls, so a gateway with a trickle of traffic spends ~1-1.5 s of CPU per
 * restart at most once per `idleMs` plus the time its calls take. Only a database on files can be restarted: an
 * in-memory one would be lost.
 */
import type { PgliteThreadClient } from './client.ts';

export interface IdleRestartOptions {
  /** no call for this long: the thread restarts (the check runs every quarter of it) */
  idleMs: number;
  /**
   * calls since the thread started below which it is left as it is (default 50: the request log writes a batch of up
   * to 200 rows a call, so the bench's 30,000 requests are ~150 calls; a gateway that only starts makes ~15)
   */
  minCalls?: number;
  onRestart?: (details: { calls: number; ms: number }) => void;
  onError?: (error: unknown) => void;
}

/** `check` is what the timer runs (exposed for tests) */
export function restartWhenIdle(client: Pick<PgliteThreadClient, 'activity' | 'restart'>, options: IdleRestartOptions): { stop(): void; check(): void } {
  const minCalls = options.minCalls ?? 50;
  let restarting = false;
  const check = () => {
    const { calls, idleMs } = client.activity();
    if (restarting || calls < minCalls || idleMs < options.idleMs) return;
    restarting = true;
    const started = performance.now();
    client.restart().then(
      () => options.onRestart?.({ calls, ms: Math.round(performance.now() - started) }),
      (error: unknown) => options.onError?.(error),
    ).finally(() => {
      restarting = false;
    });
  };
  const timer = setInterval(check, Math.max(10, Math.floor(options.idleMs / 4))).unref();
  return { stop: () => clearInterval(timer), check };
}

/** The restart's options with each restart logged (info) and each failure (error), for `idleMs` (0: never). */
export function loggedIdleRestart(idleMs: number, logger: { info(details: object, message: string): void; error(details: object, message: string): void }): IdleRestartOptions {
  return {
    idleMs,
    onRestart: (details) => {
      logger.info(details, 'embedded database: its thread restarted while idle, giving back the memory it had grown to');
    },
    onError: (error) => {
      logger.error({ err: error }, 'embedded database: its thread could not be restarted; queries fail until a restart succeeds');
    },
  };
}
