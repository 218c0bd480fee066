/**
 * Bedrock errors. HTTP errors carry `{"message": "..."}` (the type travels in the x-amzn-ErrorType header):
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors.
 * Stream exceptions arrive as event-stream messages of type `exception`:
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html.
 */
import { GatewayError, type ErrorType } from '../../core/errors.ts';
import type { ErrorParser } from '../contract.ts';
import { isRecord } from '../shared/json.ts';

function typeForStatus(status: number): ErrorType {
  if (status === 400) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 408) return 'timeout_error';
  if (status === 429) return 'rate_limit_error';
  return 'upstream_error';
}

function messageOf(body: unknown): string | undefined {
  if (!isRecord(body)) return typeof body === 'string' && body.trim() ? body.slice(0, 2000) : undefined;
  for (const key of ['message', 'Message']) {
    const value = body[key];
    if (typeof value === 'string' && value) return value;
  }
  return undefined;
}

export const parseBedrockError: ErrorParser = (status, body) => {
  const message = messageOf(body);
  return message === undefined ? undefined : { message, type: typeForStatus(status) };
};

/** the HTTP status each stream exception would have had as a plain answer (per the API reference) */
const STREAM_EXCEPTION_STATUS: Readonly<Record<string, number>> = {
  validationException: 400,
  accessDeniedException: 403,
  resourceNotFoundException: 404,
  modelTimeoutException: 408,
  throttlingException: 429,
  serviceQuotaExceededException: 429,
  modelStreamErrorException: 424,
  internalServerException: 500,
  serviceUnavailableException: 503,
};

/** A stream `exception:<type>` or `error:<code>` event -> the GatewayError the decoder throws. */
export function streamError(event: string, data: string): GatewayError {
  const [kind, name = 'unknown'] = event.split(':', 2) as [string, string | undefined];
  let message: string | undefined;
  if (kind === 'exception') {
    try {
      message = messageOf(JSON.parse(data));
    } catch {
      message = data.trim() || undefined;
    }
  } else {
    message = data.trim() || undefined;
  }
  const status = STREAM_EXCEPTION_STATUS[name] ?? 502;
  return new GatewayError(status, typeForStatus(status), message ?? `Bedrock stream failed: ${name}`, { code: name });
}
