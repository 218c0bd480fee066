/**
 * Anthropic error bodies and stream error events.
 * https://docs.anthropic.com/en/api/errors: `{"type":"error","error":{"type":"...","message":"..."}}`, also sent
 * as an `error` event inside a 200 stream.
 */
import { GatewayError, type ErrorType } from '../../core/errors.ts';
import type { ErrorParser } from '../contract.ts';
import { isRecord } from '../shared/json.ts';

/** Anthropic error types that share a name with the gateway's own catalog; the rest are upstream errors. */
const SAME_NAME: ReadonlySet<string> = new Set<ErrorType>([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'rate_limit_error',
]);

/** The status Anthropic documents for each error type, used for errors that arrive inside a stream. */
const STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

function errorFields(body: unknown): { type: string | undefined; message: string } | undefined {
  if (!isRecord(body) || !isRecord(body.error) || typeof body.error.message !== 'string') return undefined;
  return { type: typeof body.error.type === 'string' ? body.error.type : undefined, message: body.error.message };
}

/** Keeps Anthropic's message and error type. */
export const parseAnthropicError: ErrorParser = (_status, body) => {
  const fields = errorFields(body);
  if (!fields) return undefined;
  return { message: fields.message, ...(fields.type ? { type: fields.type } : {}) };
};

/** An `error` event mid-stream -> a GatewayError carrying Anthropic's message (its type kept as the code). */
export function streamError(data: unknown): GatewayError {
  const fields = errorFields(data) ?? { type: undefined, message: 'Anthropic sent an error event without a message.' };
  const type = fields.type ?? 'api_error';
  const gatewayType: ErrorType = SAME_NAME.has(type) ? (type as ErrorType) : 'upstream_error';
  return new GatewayError(STATUS[type] ?? 502, gatewayType, fields.message, { code: type });
}
