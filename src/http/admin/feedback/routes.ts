/** POST /feedback and PUT /feedback/{id} (api-surface §3.24): workspace keys only, audited. */
import type { FastifyInstance } from 'fastify';
import { createFeedback, feedbackAnswer, updateFeedback } from '../../../domain/feedback/manage-feedback.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { uuidParam } from '../params.ts';
import { validateCreateFeedback, validateUpdateFeedback } from './schemas.ts';

export function registerFeedbackRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.post('/v1/feedback', adminRoute(deps, { action: 'feedback.create', resourceType: 'feedback', scope: 'feedback.create', mutation: true }, async (ctx) => {
    const row = await createFeedback(ctx.db, ctx.principal, validateCreateFeedback(ctx.request.body), deps.now());
    return { body: feedbackAnswer([row.id], 'Feedback created.'), resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.put('/v1/feedback/:id', adminRoute(deps, { action: 'feedback.update', resourceType: 'feedback', scope: 'feedback.update', mutation: true }, async (ctx) => {
    const id = uuidParam(ctx.request.params, 'id');
    const row = await updateFeedback(ctx.db, ctx.principal, id, validateUpdateFeedback(ctx.request.body), deps.now());
    return { body: feedbackAnswer([row.id], 'Feedback updated.'), resourceId: row.id, workspaceId: row.workspaceId };
  }));
}
