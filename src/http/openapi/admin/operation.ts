/**
 * One admin operation: the scope it checks, its parameters and body, its answer, and the error statuses every
 * admin route shares (src/http/admin/admin-route.ts: 400 bad input, 401 no key, 403 missing scope or role) plus
 * the route's own.
 */
import { ref, type SchemaName } from '../components.ts';
import { BAD_INPUT, NO_KEY, NO_SCOPE, errors, json } from '../responses.ts';
import type { JsonSchema, Operation, Parameter } from '../types.ts';

export interface AdminOperationSpec {
  operationId: string;
  summary: string;
  tag: string;
  /** the scope the route checks; leave out where the use case picks it from the resource */
  scope?: string;
  description?: string;
  parameters?: Parameter[];
  /** the request body: the component of the TypeBox constant that validates it */
  body?: SchemaName;
  /** false where an absent body is read as `{}` */
  bodyRequired?: boolean;
  /** the 200 answer */
  answer: { description: string; schema?: JsonSchema };
  /** the route's own error statuses, beyond 400, 401 and 403 */
  errors?: Record<number, string>;
}

export const NOT_FOUND_OR_HIDDEN = 'not found, or not visible to the caller';

export function adminOperation(spec: AdminOperationSpec): Operation {
  const scope = spec.scope ? `Scope: \`${spec.scope}\`.` : undefined;
  const description = [spec.description, scope].filter(Boolean).join(' ');
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(description ? { description } : {}),
    tags: [spec.tag],
    ...(spec.scope ? { 'x-gateway-scope': spec.scope } : {}),
    ...(spec.parameters?.length ? { parameters: spec.parameters } : {}),
    ...(spec.body
      ? { requestBody: { required: spec.bodyRequired ?? true, content: { 'application/json': { schema: ref(spec.body) } } } }
      : {}),
    responses: {
      '200': spec.answer.schema ? json(spec.answer.description, spec.answer.schema) : { description: spec.answer.description },
      ...errors({ 400: BAD_INPUT, 401: NO_KEY, 403: NO_SCOPE, ...spec.errors }),
    },
  };
}
