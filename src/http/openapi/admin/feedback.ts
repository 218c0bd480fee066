/** The feedback group (src/http/admin/feedback/routes.ts): workspace keys only. */
import { pathParameter, UUID_SCHEMA } from '../parameters.ts';
import type { Operation, Paths } from '../types.ts';
import { analyticsRef } from './analytics-schemas.ts';
import { adminOperation } from './operation.ts';

const TAG = 'feedback';
const NOTE = 'Workspace keys only: an admin key is refused (403).';

function withBody(operation: Operation, name: 'CreateFeedbackRequest' | 'UpdateFeedbackRequest'): Operation {
  return { ...operation, requestBody: { required: true, content: { 'application/json': { schema: analyticsRef(name) } } } };
}

export function feedbackPaths(): Paths {
  return {
    '/feedback': {
      post: withBody(adminOperation({
        operationId: 'createFeedback',
        summary: 'Give feedback on a trace',
        tag: TAG,
        scope: 'feedback.create',
        description: NOTE,
        answer: { description: 'the feedback made', schema: analyticsRef('FeedbackAnswer') },
      }), 'CreateFeedbackRequest'),
    },
    '/feedback/{id}': {
      put: withBody(adminOperation({
        operationId: 'updateFeedback',
        summary: 'Change a feedback',
        tag: TAG,
        scope: 'feedback.update',
        description: `${NOTE} Absent weight and metadata are kept.`,
        parameters: [pathParameter('id', 'the feedback id', UUID_SCHEMA)],
        answer: { description: 'the feedback changed', schema: analyticsRef('FeedbackAnswer') },
        errors: { 404: 'no such feedback in the key\'s workspace' },
      }), 'UpdateFeedbackRequest'),
    },
  };
}
