/**
 * The message that carries one semantic-cache entry to every node (kv pub/sub): the entry's scope, the exact
 * cache key its answer is stored under, an absolute expiry and the embedding as base64 of its Float32Array bytes
 * (a quarter of the size of a JSON number list, and exact). Nodes share a byte order: every platform Node.js
 * ships for is little-endian.
 */

/** Bumped when the message changes shape: a node ignores versions it does not know. */
const VERSION = 1;
/** Bounds what one message can make a node allocate; embedding models stay well under this. */
export const MAX_REPLICATED_DIMENSIONS = 16_384;

export interface ReplicatedEntry {
  /** the node that stored it: it already holds the entry and skips its own message */
  node: string;
  /** the embedding space (provider, endpoint, model), see embed-call.ts */
  space: string;
  key: string;
  namespace: string;
  model: string;
  variant: string;
  /** epoch milliseconds */
  expiresAt: number;
  embedding: Float32Array;
}

export function encodeEntry(entry: ReplicatedEntry): string {
  const { embedding, ...rest } = entry;
  const vector = Buffer.from(embedding.buffer, embedding.byteOffset, embedding.byteLength).toString('base64');
  return JSON.stringify({ v: VERSION, ...rest, vector });
}

const STRING_FIELDS = ['node', 'space', 'key', 'namespace', 'model', 'variant'] as const;

/** The entry, or why the message is refused (written by another version, or not ours at all). */
export function decodeEntry(message: string): ReplicatedEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return 'not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const record = value as Record<string, unknown>;
  if (record.v !== VERSION) return `unknown version ${String(record.v)}`;
  for (const field of STRING_FIELDS) if (typeof record[field] !== 'string') return `${field} is not a string`;
  if (typeof record.expiresAt !== 'number' || !Number.isFinite(record.expiresAt)) return 'expiresAt is not a number';
  if (typeof record.vector !== 'string') return 'vector is not a string';
  const bytes = Buffer.from(record.vector, 'base64');
  const dimensions = bytes.length / 4;
  if (!Number.isInteger(dimensions) || dimensions === 0 || dimensions > MAX_REPLICATED_DIMENSIONS) return 'vector has a bad length';
  // copied into a fresh buffer: a Float32Array view needs a 4-byte aligned offset, which a pooled Buffer lacks
  const embedding = new Float32Array(dimensions);
  new Uint8Array(embedding.buffer).set(bytes);
  return {
    node: record.node as string,
    space: record.space as string,
    key: record.key as string,
    namespace: record.namespace as string,
    model: record.model as string,
    variant: record.variant as string,
    expiresAt: record.expiresAt,
    embedding,
  };
}
