/**
 * Google API errors (Gemini API and Vertex AI): `{ error: { code, message, status, details } }`, sometimes wrapped
 * in a one-element array. The message is kept; the status (e.g. INVALID_ARGUMENT, RESOURCE_EXHAUSTED) becomes
 * the OpenAI error code.
 * https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 * https://cloud.google.com/apis/design/errors#http_mapping
 */
import { GatewayError, type ErrorType } from '../../core/errors.ts';
import type { ErrorParser } from '../contract.ts';
import { isRecord, type JsonRecord } from '../shared/json.ts';

function errorObjectOf(body: unknown): JsonRecord | undefined {
  const value = Array.isArray(body) ? body[0] : body;
  const inner = isRecord(value) ? value.error : undefined;
  return isRecord(inner) ? inner : undefined;
}

export const parseGoogleError: ErrorParser = (_status, body) => {
  const error = errorObjectOf(body);
  if (!error || typeof error.message !== 'string') return undefined;
  return { message: error.message, ...(typeof error.status === 'string' ? { code: error.status } : {}) };
};

const TYPE_BY_STATUS: Readonly<Record<number, ErrorType>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

/** An error sent inside a 200 stream -> the GatewayError the renderer writes as the stream's last event. */
export function streamErrorOf(json: unknown): GatewayError | undefined {
  const error = errorObjectOf(json);
  if (!error) return undefined;
  const status = typeof error.code === 'number' && error.code >= 400 && error.code < 600 ? error.code : 502;
  const message = typeof error.message === 'string' ? error.message : 'The provider reported an error in the stream.';
  const code = typeof error.status === 'string' ? error.status : 'provider_stream_error';
  return new GatewayError(status, TYPE_BY_STATUS[status] ?? 'upstream_error', message, { code });
}
