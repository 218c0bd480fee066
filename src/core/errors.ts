/**
 * The error catalog. Every error the gateway itself raises is a GatewayError with an HTTP status and the
 * OpenAI error shape's fields, so every OpenAI-compatible client shows the message.
 * The catalog entries are pinned by test/error-catalog.test.ts.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'upstream_error'
  | 'not_implemented_error'
  | 'guardrail_error'
  | 'server_error';

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export class GatewayError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string | null;
  readonly param: string | null;
  /** further top-level fields of the error body (e.g. guardrail verdicts in `hook_results`) */
  readonly extra: Readonly<Record<string, unknown>> | undefined;

  constructor(status: number, type: ErrorType, message: string, options: { code?: string; param?: string; extra?: Record<string, unknown> } = {}) {
    super(message);
    this.name = 'GatewayError';
    this.status = status;
    this.type = type;
    this.code = options.code ?? null;
    this.param = options.param ?? null;
    this.extra = options.extra;
  }

  toBody(): ErrorBody {
    return { ...this.extra, error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** A request field or header failed validation: 400 naming the field. */
export function invalidParam(param: string, message: string, code = 'invalid_value'): GatewayError {
  return new GatewayError(400, 'invalid_request_error', message, { param, code });
}

export function badRequest(message: string, code = 'bad_request', param?: string): GatewayError {
  return new GatewayError(400, 'invalid_request_error', message, { code, ...(param ? { param } : {}) });
}

export function unauthorized(message: string, code = 'invalid_api_key'): GatewayError {
  return new GatewayError(401, 'authentication_error', message, { code });
}

export function forbidden(message: string, code = 'forbidden'): GatewayError {
  return new GatewayError(403, 'permission_error', message, { code });
}

export function notFound(message: string, code = 'not_found'): GatewayError {
  return new GatewayError(404, 'not_found_error', message, { code });
}

export function conflict(message: string, code = 'conflict'): GatewayError {
  return new GatewayError(409, 'conflict_error', message, { code });
}

export function requestTimeout(ms: number): GatewayError {
  return new GatewayError(408, 'timeout_error', `The upstream provider did not answer within ${ms} ms.`, {
    code: 'request_timeout',
  });
}

export function badGateway(message: string, code = 'bad_upstream_response'): GatewayError {
  return new GatewayError(502, 'upstream_error', message, { code });
}

export function notImplemented(message: string, code = 'not_implemented'): GatewayError {
  return new GatewayError(501, 'not_implemented_error', message, { code });
}

/** The database cannot be reached (down, restarting, refusing connections): try again shortly. */
export function storageUnavailable(): GatewayError {
  return new GatewayError(503, 'server_error', 'The gateway\'s database is unavailable; try again shortly.', { code: 'storage_unavailable' });
}

const CONNECTION_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const CONNECTION_MESSAGES = /Connection terminated|connection timeout|Client has encountered a connection error|the database system is (starting up|shutting down)|terminating connection/i;

/**
 * Whether an error thrown by a storage call means the database could not be reached, rather than a bug: a socket
 * error, PostgreSQL's connection-exception class (08), an administrator shutdown or crash (57P01-57P03) or too
 * many connections (53300). Looked up the cause chain a few levels deep (drivers wrap their errors).
 */
export function isConnectionFailure(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300')) return true;
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** A bug or an unexpected failure: the message never echoes internals (the cause goes to the log). */
export function internalError(): GatewayError {
  return new GatewayError(500, 'server_error', 'The gateway hit an internal error.', { code: 'internal_error' });
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}
