/**
 * Messages between a cluster worker (a server process) and the primary, which owns what the workers must share
 * when no external service is configured: the embedded database and the in-process key-value store.
 * Sent over the cluster's IPC channel with `serialization: 'advanced'` (structured clone: Dates, Buffers, BigInts).
 */
import type { BinaryParameter } from '../../storage/extended-protocol.ts';
import type { SerializedError } from '../../storage/pglite-worker/protocol.ts';

export type DatabaseRequest =
  | { gw: 'db'; id: number; op: 'query'; tx?: number; sql: string; params: unknown[]; rowMode: 'array' | 'object'; identityTypes: number[] }
  | { gw: 'db'; id: number; op: 'exec'; tx?: number; sql: string }
  /** a named prepared statement, outside any transaction */
  | { gw: 'db'; id: number; op: 'prepared'; name: string; text: string; parameterTypes: number[]; params: BinaryParameter[] }
  /** opens a transaction: the reply is its number, and it holds the database until `end` */
  | { gw: 'db'; id: number; op: 'begin' }
  | { gw: 'db'; id: number; op: 'end'; tx: number; commit: boolean };

export type KvOperation = 'get' | 'set' | 'del' | 'incrBy' | 'script' | 'publish' | 'subscribe' | 'unsubscribe' | 'ping';
export type KvRequest = { gw: 'kv'; id: number; op: KvOperation; args: unknown[] };

/** the Prometheus text of every worker's metrics, summed by the primary */
export type MetricsRequest = { gw: 'metrics'; id: number };

export type ClusterRequest = DatabaseRequest | KvRequest | MetricsRequest;

export type ClusterReply = { gw: 'reply'; id: number; result?: unknown; error?: SerializedError };

export type ClusterEvent =
  /** a message published on a channel this worker subscribed to */
  | { gw: 'kv-message'; channel: string; message: string }
  /** the primary is shutting down: stop gracefully (the same steps as SIGTERM) */
  | { gw: 'shutdown' };

export function isClusterMessage(message: unknown): message is { gw: string } {
  return typeof message === 'object' && message !== null && typeof (message as { gw?: unknown }).gw === 'string';
}

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

export function deserializeError(serialized: SerializedError): Error {
  const error = new Error(serialized.message);
  error.name = serialized.name;
  // the database's own fields (code, detail, constraint...): callers test `code` (23505 is a unique violation)
  return Object.assign(error, serialized.fields);
}
