/**
 * A refusal by a limit: the error shape, plus the answer headers a client needs to back off (`retry-after` and the
 * `x-ratelimit-*` family). The headers are set on the reply before the error handler renders the body (the
 * `onError` hook in app.ts), so every route that can be limited answers them the same way.
 */
import { GatewayError, type ErrorType } from '../core/errors.ts';

export class LimitError extends GatewayError {
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, type: ErrorType, message: string, code: string, headers: Record<string, string>) {
    super(status, type, message, { code });
    this.headers = Object.freeze(headers);
  }
}

/** Sets a limit refusal's headers on the reply; any other error passes through untouched. */
export function applyLimitHeaders(error: unknown, reply: { headers(values: Record<string, string>): unknown }): void {
  if (error instanceof LimitError) reply.headers({ ...error.headers });
}
