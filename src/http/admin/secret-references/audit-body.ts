/**
 * The audit record keeps the request body, masked by field name (src/secrets/mask.ts). Not every secret of
 * auth_config has a secret-looking name (vault_secret_id, secret_value), so a mutating route first swaps the body
 * the record will read for one whose auth_config shows only its public fields; the use case gets the original.
 */
import type { FastifyRequest } from 'fastify';
import { maskedAuthConfig } from '../../../domain/secret-references/auth-config.ts';
import { MASK } from '../../../secrets/mask.ts';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Returns the body as sent, and leaves the audit-safe copy on the request. */
export function takeBodyForAudit(request: FastifyRequest): unknown {
  const body = request.body;
  if (isObject(body) && body.auth_config !== undefined) {
    request.body = { ...body, auth_config: isObject(body.auth_config) ? maskedAuthConfig(body.auth_config) : MASK };
  }
  return body;
}
