/** Messages between the gateway's thread and the thread that owns the embedded PGlite database. */
export type WorkerRequest =
  | { id: number; op: 'query'; sql: string; params: unknown[]; rowMode: 'array' | 'object'; identityTypes: number[] }
  | { id: number; op: 'exec'; sql: string }
  /**
   * runs the named prepared statement (prepared from `sql` on its first run): `message` is its Bind, Execute and
   * Sync, parameters in the binary format, in shared memory the sender reuses once the reply has come
   * (message-buffer.ts)
   */
  | { id: number; op: 'prepared'; name: string; sql: string; parameterTypes: number[]; message: Uint8Array }
  | { id: number; op: 'close' };

export type WorkerReply = { id: number; result: unknown } | { id: number; error: SerializedError };

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
