/**
 * Which provider a files, batches or fine-tuning call goes to: the same selection as the inference routes
 * (x-gateway-provider with credentials or a custom host, `@slug`, a virtual key, a config), then the saved
 * provider the record names when the request names none. A config sends these calls to its first target only:
 * a file or a batch lives at one provider, so falling back or balancing between providers has no meaning here.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayHeaders, Principal } from '../../../core/context.ts';
import type { InferenceCall } from '../../../core/inference-call.ts';
import { headersFor } from '../../../pipeline/executor.ts';
import { planRequest } from '../../../pipeline/request-plan.ts';
import { hasProviderSignal } from '../../../pipeline/resolve-target.ts';
import { resolveAttemptTarget, type AttemptTarget } from '../../../pipeline/saved-provider-target.ts';
import { gatewayHeadersOf, type ForwardDeps } from '../../forward.ts';

export interface ResolvedResource extends AttemptTarget {
  headers: GatewayHeaders;
  principal: Principal;
}

export interface CallShape {
  method: string;
  /** the OpenAI path after /v1 (ids already encoded) */
  path: string;
  body: unknown;
  rawBody: Buffer | undefined;
  contentType: string | undefined;
}

function clientQuery(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const at = url.indexOf('?');
  return at >= 0 ? url.slice(at + 1) : '';
}

export function callOf(request: FastifyRequest, shape: CallShape): InferenceCall {
  return {
    route: 'passthrough',
    body: shape.body,
    method: shape.method,
    path: shape.path,
    query: clientQuery(request),
    strictReferenceCompliance: true,
    rawBody: shape.rawBody,
    contentType: shape.contentType,
    params: {},
  };
}

/**
 * `fallbackSlug`: the saved provider a record (or a batch body's gateway_options) names, used only when the request
 * itself names no provider.
 */
export async function resolveResource(
  request: FastifyRequest,
  reply: FastifyReply,
  call: InferenceCall,
  deps: ForwardDeps,
  fallbackSlug: string | null | undefined,
): Promise<ResolvedResource> {
  const principal = request.principal!;
  let headers = gatewayHeadersOf(request, reply, deps);
  if (!hasProviderSignal(headers) && fallbackSlug) headers = { ...headers, virtualKey: fallbackSlug };
  const planned = await planRequest(headers, call.body, principal, deps, Math.random);
  const attemptHeaders = planned.configured ? headersFor(headers, planned.plan.attempts[0]!) : headers;
  const resolved = await resolveAttemptTarget(attemptHeaders, call, principal, deps);
  return { ...resolved, headers: attemptHeaders, principal };
}
