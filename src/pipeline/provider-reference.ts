/**
 * Which saved provider an attempt names, if any: `@slug` (x-gateway-provider, or a config target's `provider`), a
 * virtual key (x-gateway-virtual-key, or a target's `virtual_key`: the legacy name of the same thing), or a model
 * string `@slug/model` when nothing else names the provider (a provider named outright keeps its model as written:
 * some providers' own model names start with `@`). The slug's form is checked here, before any lookup; errors name
 * the header or config field that gave it.
 */
import type { GatewayHeaders } from '../core/context.ts';
import { invalidParam } from '../core/errors.ts';
import { withBody, type InferenceCall } from '../core/inference-call.ts';
import { isProviderSlug } from '../domain/providers/slug.ts';
import type { PlannedTarget } from '../routing/target-settings.ts';

export interface ProviderReference {
  slug: string;
  /** the header or field that named it: what its errors name */
  param: string;
  /** the call to send: a `@slug/` prefix taken off its model */
  call: InferenceCall;
}

type Destination = Pick<GatewayHeaders, 'provider' | 'providerSlug' | 'virtualKey' | 'savedProviderParam'>;

/**
 * The destination of one attempt of a config: the target's own when it names one (`provider: "@slug"` is a saved
 * provider, errors then name `<path>.provider`), else the request headers'.
 */
export function destinationFor(headers: GatewayHeaders, target: PlannedTarget, path: string): Destination {
  if (target.provider === undefined && target.virtualKey === undefined) {
    return { provider: headers.provider, providerSlug: headers.providerSlug, virtualKey: headers.virtualKey, savedProviderParam: headers.savedProviderParam };
  }
  if (target.virtualKey !== undefined) {
    return { provider: undefined, providerSlug: undefined, virtualKey: target.virtualKey, savedProviderParam: `${path}.virtual_key` };
  }
  if (target.provider?.startsWith('@')) {
    return { provider: undefined, providerSlug: target.provider.slice(1), virtualKey: undefined, savedProviderParam: `${path}.provider` };
  }
  return { provider: target.provider, providerSlug: undefined, virtualKey: undefined, savedProviderParam: undefined };
}

function modelOf(call: InferenceCall): string | undefined {
  const body = call.body;
  if (typeof body !== 'object' || body === null || Buffer.isBuffer(body)) return undefined;
  const model = (body as Record<string, unknown>).model;
  return typeof model === 'string' ? model : undefined;
}

function withModel(call: InferenceCall, model: string): InferenceCall {
  return withBody(call, { ...(call.body as Record<string, unknown>), model });
}

function checkedSlug(slug: string, param: string): string {
  if (!isProviderSlug(slug)) {
    throw invalidParam(param, `${param} names a malformed provider slug "${slug.slice(0, 100)}": a slug is 1 to 255 letters, digits, "_" or "-".`, 'invalid_provider_slug');
  }
  return slug;
}

export function providerReference(headers: GatewayHeaders, call: InferenceCall): ProviderReference | undefined {
  const model = modelOf(call);
  const { providerSlug, virtualKey } = headers;
  if (providerSlug !== undefined || virtualKey !== undefined) {
    if (providerSlug !== undefined && virtualKey !== undefined && providerSlug !== virtualKey) {
      throw invalidParam('x-gateway-virtual-key', `x-gateway-virtual-key "${virtualKey}" and x-gateway-provider "@${providerSlug}" name different providers: send one.`, 'conflicting_provider');
    }
    const param = headers.savedProviderParam ?? (providerSlug !== undefined ? 'x-gateway-provider' : 'x-gateway-virtual-key');
    const slug = checkedSlug(providerSlug ?? virtualKey!, param);
    // `@slug/model` naming the same provider again: the model is what follows
    const prefix = `@${slug}/`;
    return { slug, param, call: model?.startsWith(prefix) ? withModel(call, model.slice(prefix.length)) : call };
  }
  if (headers.provider !== undefined || model === undefined || !model.startsWith('@')) return undefined;
  const slash = model.indexOf('/');
  if (slash < 0) return undefined;
  const slug = checkedSlug(model.slice(1, slash), 'model');
  const upstreamModel = model.slice(slash + 1);
  if (upstreamModel.length === 0) throw invalidParam('model', `model "${model}" names the provider "@${slug}" but no model after it.`, 'invalid_model');
  return { slug, param: 'model', call: withModel(call, upstreamModel) };
}
