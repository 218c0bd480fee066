/** Saved guardrails (src/http/admin/guardrails/routes.ts), addressed by id or slug. */
import { GUARDRAIL_SLUG_PATTERN } from '../../admin/guardrails/schemas.ts';
import { listRef, ref } from '../components.ts';
import { WORKSPACE_FILTER, pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { NOT_FOUND_OR_HIDDEN, adminOperation } from './operation.ts';

const TAG = 'guardrails';
const ID = pathParameter('guardrailId', 'the guardrail\'s id or slug', { type: 'string', pattern: GUARDRAIL_SLUG_PATTERN });
const CHECKS = 'Each check\'s `id` and `parameters` are checked against the check registry; a bad one is a 400 naming it.';

export function guardrailPaths(): Paths {
  return {
    '/guardrails': {
      post: adminOperation({
        operationId: 'createGuardrail',
        summary: 'Save a guardrail',
        tag: TAG,
        scope: 'guardrails.create',
        description: CHECKS,
        body: 'CreateGuardrailRequest',
        answer: { description: 'the new guardrail', schema: ref('GuardrailReference') },
        errors: { 404: 'the workspace is not found, or not visible to the caller', 409: 'the slug is taken' },
      }),
      get: adminOperation({
        operationId: 'listGuardrails',
        summary: 'List saved guardrails',
        tag: TAG,
        scope: 'guardrails.list',
        parameters: [
          ...pageParameters({ defaultSize: 100, maxSize: 1000 }),
          queryParameter('organisation_id', 'the caller\'s organisation (another is a 400)', { type: 'string', format: 'uuid' }),
          WORKSPACE_FILTER,
        ],
        answer: { description: 'the guardrails the caller can see', schema: listRef('GuardrailSummary', 'saved guardrails') },
        errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
    },
    '/guardrails/{guardrailId}': {
      get: adminOperation({
        operationId: 'getGuardrail',
        summary: 'Get a saved guardrail',
        tag: TAG,
        scope: 'guardrails.read',
        parameters: [ID],
        answer: { description: 'the guardrail, with its checks and actions', schema: ref('GuardrailDetails') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      put: adminOperation({
        operationId: 'updateGuardrail',
        summary: 'Update a saved guardrail',
        tag: TAG,
        scope: 'guardrails.update',
        description: CHECKS,
        parameters: [ID],
        body: 'UpdateGuardrailRequest',
        answer: { description: 'updated', schema: ref('GuardrailReference') },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
      delete: adminOperation({
        operationId: 'deleteGuardrail',
        summary: 'Delete a saved guardrail',
        tag: TAG,
        scope: 'guardrails.delete',
        parameters: [ID],
        answer: { description: 'deleted (no body)' },
        errors: { 404: NOT_FOUND_OR_HIDDEN },
      }),
    },
  };
}
