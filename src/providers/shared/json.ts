/** Narrowing helpers for the untyped JSON adapters read (client bodies, provider answers), shared by the adapters. */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function recordOf(value: unknown): JsonRecord {
  return isRecord(value) ? value : {};
}

export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** true when a client field is set: OpenAI clients send `null` for "not set". */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

