/**
 * The audit record keeps each admin call's body with secret-looking fields masked by name (secrets/mask.ts). An
 * integration's body carries secrets that no name gives away (a declared secret setting such as a service account
 * key file, given as a string or an object), so these routes hand the audit a copy with every secret configuration
 * and the key masked, before anything (a scope denial included) can record it; the use case reads the original.
 */
import type { FastifyRequest } from 'fastify';
import { isSensitiveName, MASK } from '../../../secrets/mask.ts';

const originals = new WeakMap<FastifyRequest, unknown>();

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function maskedConfigurations(value: unknown, secretFields: ReadonlySet<string>): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, secretFields.has(name) || isSensitiveName(name) ? MASK : inner]));
}

/** A copy of the body for the record: `key` and every secret field of `configurations` masked, whatever their type. */
export function redactedBody(body: unknown, secretFields: ReadonlySet<string>): unknown {
  if (!isObject(body)) return body;
  const copy: Record<string, unknown> = { ...body };
  if ('key' in copy) copy.key = MASK;
  if ('configurations' in copy) copy.configurations = maskedConfigurations(copy.configurations, secretFields);
  return copy;
}

/** A preHandler: the request's body becomes the redacted copy; `originalBody` gives the use case what was sent. */
export function redactForAudit(secretFields: ReadonlySet<string>) {
  return async (request: FastifyRequest): Promise<void> => {
    originals.set(request, request.body);
    request.body = redactedBody(request.body, secretFields);
  };
}

export function originalBody(request: FastifyRequest): unknown {
  return originals.has(request) ? originals.get(request) : request.body;
}
