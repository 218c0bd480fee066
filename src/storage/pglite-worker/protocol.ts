/** Messages between the gateway's thread and the thread that owns the embedded PGlite database. */
import type { BinaryParameter } from './extended-protocol.ts';

export type WorkerRequest =
  | { id: number; op: 'query'; sql: string; params: unknown[]; rowMode: 'array' | 'object'; identityTypes: number[] }
  | { id: number; op: 'exec'; sql: string }
  /** runs the named prepared statement (prepared from `sql` on its first run), parameters in the binary format */
  | { id: number; op: 'prepared'; name: string; sql: string; parameterTypes: number[]; params: BinaryParameter[] }
  | { id: number; op: 'close' };

export type WorkerReply = { id: number; result: unknown } | { id: number; error: SerializedError };

/** A database error as fields: its `code` (e.g. 23505) is what callers test. */
export interface SerializedError {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

/**
 * V8's WebAssembly compilers for the embedded database (GATEWAY_PGLITE_COMPILER): `baseline` Liftoff only (the
 * default: the fastest start and the least memory; its queries take ~40% more CPU than optimised code), `optimizing`
 * TurboFan only (each function compiled when first called: ~2 s more at start), `tiered` V8's default (Liftoff, then
 * TurboFan for the hot functions, both kept: the most memory). Figures: docs/performance.md, "One bundle".
 */
export type PgliteCompiler = 'baseline' | 'optimizing' | 'tiered';

export interface WorkerStart {
  /** undefined: in memory */
  dataDir: string | undefined;
  /** applied process-wide (V8 has no per-thread flags) before the thread starts, by the compiled gateway only */
  compiler?: PgliteCompiler | undefined;
  /** in memory only: a data directory dumped by PGlite's dumpDataDir (a tar file) to start from instead of initdb */
  seed?: string | undefined;
  postgresqlconf: string;
}
