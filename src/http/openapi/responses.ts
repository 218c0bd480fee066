/** Responses: JSON answers, the error statuses (always the ErrorResponse body), and the headers of inference answers. */
import { ref } from './components.ts';
import type { Header, JsonSchema, Reference, Response } from './types.ts';

export function json(description: string, schema: JsonSchema): Response {
  return { description, content: { 'application/json': { schema } } };
}

function errorBody(description: string): Response {
  return json(description, ref('ErrorResponse'));
}

/** status -> what it means on this route; every error body is ErrorResponse. */
export function errors(statuses: Record<number, string>): Record<string, Response> {
  return Object.fromEntries(Object.entries(statuses).map(([status, description]) => [status, errorBody(description)]));
}

export const BAD_INPUT = 'bad input: the message and `param` name the field, query parameter or header';
export const NO_KEY = 'missing, unknown, revoked or expired gateway key (x-gateway-api-key, or a JWT in it)';
export const NO_SCOPE = 'the key lacks the scope (named in the message) or the role this call needs';

function responseHeader(description: string): Header {
  return { description, schema: { type: 'string' } };
}

/** What every inference answer carries (src/http/response-headers.ts), declared once under components.headers. */
export const INFERENCE_HEADER_COMPONENTS: Record<string, Header> = {
  'x-gateway-trace-id': responseHeader('the trace id, given or generated'),
  'x-gateway-provider': responseHeader('the provider that answered'),
  'x-gateway-retry-attempt-count': responseHeader('retries made before this answer'),
  'x-gateway-last-used-option-index': responseHeader('which target of the config answered'),
  'x-gateway-cache-status': responseHeader('HIT, MISS, SEMANTIC HIT, REFRESH or DISABLED'),
};

export const INFERENCE_HEADERS: Record<string, Reference> = Object.fromEntries(
  Object.keys(INFERENCE_HEADER_COMPONENTS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
);

/** The statuses of a call that goes to a provider: status, component name, response. */
const INFERENCE_ERRORS: ReadonlyArray<readonly [string, string, Response]> = [
  ['400', 'InferenceBadInput', errorBody(BAD_INPUT)],
  ['401', 'InferenceNoKey', errorBody(NO_KEY)],
  ['408', 'InferenceTimeout', errorBody('x-gateway-request-timeout (or the config\'s request_timeout) expired')],
  ['413', 'InferenceBodyTooLarge', errorBody('the body is larger than the gateway accepts')],
  ['429', 'InferenceLimited', errorBody('a rate limit or a usage limit (budget) refused the request; the message names it, with retry-after and x-ratelimit-* where they can be known')],
  ['446', 'GuardrailDenied', json('an input or output guardrail failed and denies the request; the verdicts are in hook_results', { type: 'object' })],
  ['502', 'ProviderUnreachable', errorBody('the provider could not be reached or answered something unreadable')],
  ['503', 'InferenceLimitStoreDown', errorBody('a usage limit could not be checked because its counter store is unreachable and the limit fails closed')],
  // any other status: the provider's own error, passed on as it came
  ['default', 'ProviderError', { description: 'the provider\'s own error, with its status and body' }],
];

/** Declared once under components.responses. */
export const INFERENCE_ERROR_COMPONENTS: Record<string, Response> = Object.fromEntries(INFERENCE_ERRORS.map(([, name, response]) => [name, response]));

export function inferenceErrors(): Record<string, Reference> {
  return Object.fromEntries(INFERENCE_ERRORS.map(([status, name]) => [status, { $ref: `#/components/responses/${name}` }]));
}
