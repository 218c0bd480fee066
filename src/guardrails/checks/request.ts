/**
 * Checks on the request itself rather than its text: default.modelWhitelist, default.allowedRequestTypes and
 * default.requiredMetadataKeys.
 */
import { Type } from '@sinclair/typebox';
import type { RouteKind } from '../../providers/contract.ts';
import { Not, ParameterSchema, decide, defineCheck, definePreparedCheck, invalidParameter } from '../define.ts';
import { SPEC_REQUEST_TYPES, type RequestType, type SpecRequestType } from '../types.ts';

const ModelWhitelistParameters = ParameterSchema({ models: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }), not: Not });

/**
 * Exact, case-sensitive model names. A request without a model fails whatever `not` says: neither an allow list
 * nor a block list can vouch for a model it cannot see (fail closed).
 */
export const modelWhitelist = defineCheck(ModelWhitelistParameters, (context, parameters) => {
  if (context.model === undefined) return { verdict: false, explanation: 'The request names no model.' };
  const listed = parameters.models.includes(context.model);
  return decide(listed, parameters.not, {
    yes: `The model ${context.model} is in the list.`,
    no: `The model ${context.model} is not in the list.`,
  });
});

/** The spec's request-type names for the gateway's own route kinds: either spelling matches the other. */
const SPEC_TO_ROUTE: Readonly<Partial<Record<SpecRequestType | RouteKind, RouteKind>>> = {
  complete: 'completions',
  chatComplete: 'chat',
  embed: 'embeddings',
  rerank: 'rerank',
  proxy: 'passthrough',
  createModelResponse: 'responses.create',
  getModelResponse: 'responses.get',
  deleteModelResponse: 'responses.delete',
  listResponseInputItems: 'responses.input_items',
};

const ROUTE_KINDS: readonly RouteKind[] = [
  'chat', 'completions', 'embeddings', 'rerank', 'models',
  'responses.create', 'responses.get', 'responses.delete', 'responses.input_items', 'passthrough',
];

function canonical(type: RequestType): string {
  return SPEC_TO_ROUTE[type] ?? type;
}

const RequestTypeName = Type.Union([...SPEC_REQUEST_TYPES, ...ROUTE_KINDS].map((name) => Type.Literal(name)));
const AllowedRequestTypesParameters = ParameterSchema({
  allowedTypes: Type.Optional(Type.Array(RequestTypeName)),
  blockedTypes: Type.Optional(Type.Array(RequestTypeName)),
});

/** A type in both lists is blocked (api-surface §3.14: "blocked wins when both match"). */
export const allowedRequestTypes = definePreparedCheck(
  AllowedRequestTypesParameters,
  (context, parameters: { allowed: Set<string> | undefined; blocked: Set<string> }) => {
    const type = canonical(context.requestType);
    if (parameters.blocked.has(type)) {
      return { verdict: false, explanation: `The request type ${context.requestType} is blocked.` };
    }
    if (parameters.allowed !== undefined && !parameters.allowed.has(type)) {
      return { verdict: false, explanation: `The request type ${context.requestType} is not allowed.` };
    }
    return { verdict: true, explanation: `The request type ${context.requestType} is allowed.` };
  },
  (parameters, path) => {
    if (parameters.allowedTypes === undefined && parameters.blockedTypes === undefined) {
      throw invalidParameter(`${path}.allowedTypes`, 'give allowedTypes, blockedTypes or both');
    }
    const toSet = (types: RequestType[] | undefined) => new Set((types ?? []).map(canonical));
    return {
      allowed: parameters.allowedTypes === undefined ? undefined : toSet(parameters.allowedTypes),
      blocked: toSet(parameters.blockedTypes),
    };
  },
);

const RequiredMetadataKeysParameters = ParameterSchema({
  metadataKeys: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  operator: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('any'), Type.Literal('none')])),
});

export const requiredMetadataKeys = defineCheck(RequiredMetadataKeysParameters, (context, parameters) => {
  const operator = parameters.operator ?? 'all';
  const present = parameters.metadataKeys.filter((key) => Object.hasOwn(context.metadata, key));
  const missing = parameters.metadataKeys.filter((key) => !Object.hasOwn(context.metadata, key));
  const verdict =
    operator === 'any' ? present.length > 0 : operator === 'all' ? missing.length === 0 : present.length === 0;
  const explanation = verdict
    ? `The metadata satisfies ${operator} of the keys.`
    : `The metadata fails ${operator} of the keys (present: ${present.join(', ') || 'none'}; missing: ${missing.join(', ') || 'none'}).`;
  return { verdict, explanation, data: { operator, present, missing } };
});
