/**
 * How a secret manager's failure reaches the caller: a clear 4xx/502 naming the secret reference and what the
 * manager said (its error code and message only, cut short), never the credentials and never a value. The
 * request being served cannot fix a manager's refusal, so a refusal is the gateway's upstream failing: 502.
 */
import { GatewayError, badGateway } from '../../core/errors.ts';

/** `secret reference "openai-key"`: how every message names the reference. */
export type ReferenceLabel = string;

const MAX_DETAIL = 300;

function cut(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_DETAIL ? `${flat.slice(0, MAX_DETAIL)}…` : flat;
}

/** The manager's address is private or reserved and not allowlisted: refused before any connection. */
export function managerBlocked(label: ReferenceLabel, field: string, reason: string): GatewayError {
  return new GatewayError(400, 'invalid_request_error', `The ${field} of ${label} is not allowed: ${reason}`, {
    code: 'secret_manager_blocked',
  });
}

export function managerUnreachable(label: ReferenceLabel, manager: string, cause: string): GatewayError {
  return badGateway(`${manager} could not be reached for ${label}: ${cut(cause)}`, 'secret_manager_unreachable');
}

/** What an error answer means; AWS says it in the body (`__type`), the others mostly in the status. */
export type RefusalKind = 'credentials' | 'not_found' | 'other';

export function refusalKindOf(status: number): RefusalKind {
  if (status === 401 || status === 403) return 'credentials';
  return status === 404 ? 'not_found' : 'other';
}

const REFUSALS: Record<RefusalKind, { what: string; code: string }> = {
  credentials: { what: 'refused the credentials of', code: 'secret_manager_auth_failed' },
  not_found: { what: 'has no secret for', code: 'secret_not_found' },
  other: { what: 'failed to serve', code: 'secret_manager_error' },
};

/** The manager answered with an error: refused credentials, a missing secret, or anything else. */
export function managerRefused(label: ReferenceLabel, manager: string, answer: { status: number; kind: RefusalKind; detail: string }): GatewayError {
  const { what, code } = REFUSALS[answer.kind];
  const detail = answer.detail ? `: ${cut(answer.detail)}` : '';
  return badGateway(`${manager} ${what} ${label} (${answer.status}${detail}).`, code);
}

/** The manager answered, but not with something the gateway can read as a secret. */
export function secretUnavailable(label: ReferenceLabel, why: string): GatewayError {
  return badGateway(`The value of ${label} is not available: ${why}`, 'secret_unavailable');
}
