/** Messages between the gateway's thread and the thread that owns the embedded PGlite database. */
import type { BinaryParameter } from './extended-protocol.ts';

export type WorkerRequest =
  | { id: number; op: 'query'; sql: string; params: unknown[]; rowMode: 'array' | 'object'; identityTypes: number[] }
  | { id: number; op: 'exec'; sql: string }
  /** runs the named prepared statement (prepared from `sql` on its first run), parameters in the binary format */
  | { id: number; op: 'prepared'; name: string; sql: string; parameterTypes: number[]; params: BinaryParameter[] }
  | { id: number; op: 'close' };

/**
 * `spent`: memory the database's thread is done with (a batch's bytes and the message made of them), moved back with
 * the reply so that it is freed by the receiver's next young collection. Left in the database's thread, whose heap is
 * small and rarely collected in full, those buffers were ~20 MB held at a time under load (docs/performance.md,
 * tenth session). The receiver drops them.
 */
export type WorkerReply = { id: number; result: unknown; spent?: ArrayBuffer[] } | { id: number; error: SerializedError };

/**
 * The memory of these views that can be moved to another thread instead of copied: only a view that is a whole
 * ArrayBuffer of its own, never a slice of Node's shared pool. A moved buffer is empty on the sender's side afterwards.
 */
export function ownedBuffers(views: ReadonlyArray<unknown>): ArrayBuffer[] {
  const owned: ArrayBuffer[] = [];
  for (const view of views) {
    if (!(view instanceof Uint8Array) || !(view.buffer instanceof ArrayBuffer)) continue;
    if (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && !owned.includes(view.buffer)) owned.push(view.buffer);
  }
  return owned;
}

/** A database error as fields: its `code` (e.g. 23505) is what callers test. */
export interface SerializedError {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

export interface WorkerStart {
  /** undefined: in memory */
  dataDir: string | undefined;
  /** in memory only: a data directory dumped by PGlite's dumpDataDir (a tar file) to start from instead of initdb */
  seed?: string | undefined;
  postgresqlconf: string;
}
