/**
 * Feedback on a trace: created and updated with workspace keys only (the seed's operation table: "Create or update
 * feedback: admin key no, workspace key yes"). A feedback belongs to the key's workspace; another workspace's is
 * not found. The trace need not be logged yet: log rows are written in batches, and feedback may come first.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/context.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findFeedback, insertFeedback, updateFeedbackRow } from '../../storage/repositories/feedback.ts';
import type { CreateFeedbackInput, UpdateFeedbackInput } from './inputs.ts';

function requireWorkspaceKey(principal: Principal): void {
  if (principal.keyType !== 'workspace') {
    throw forbidden('Feedback is created and updated with a workspace API key; an admin key cannot.', 'workspace_key_required');
  }
}

export function feedbackAnswer(ids: string[], message: string) {
  return { status: 'success' as const, message, feedback_ids: ids };
}

export async function createFeedback(db: Db, principal: Principal, input: CreateFeedbackInput, now: Date) {
  requireWorkspaceKey(principal);
  const row = await insertFeedback(db, {
    id: randomUUID(),
    organisationId: principal.organisationId,
    workspaceId: principal.workspaceId,
    traceId: input.trace_id,
    value: input.value,
    weight: input.weight ?? 1,
    metadata: input.metadata ?? {},
    apiKeyId: principal.kind === 'api_key' ? principal.keyId : null,
    createdAt: now,
    updatedAt: now,
  });
  return row;
}

export async function updateFeedback(db: Db, principal: Principal, id: string, input: UpdateFeedbackInput, now: Date) {
  requireWorkspaceKey(principal);
  const row = await findFeedback(db, principal.organisationId, principal.workspaceId, id);
  if (!row) throw notFound(`Feedback "${id}" not found.`, 'feedback_not_found');
  await updateFeedbackRow(db, row.id, {
    value: input.value,
    weight: input.weight ?? row.weight,
    metadata: input.metadata ?? row.metadata,
    updatedAt: now,
  });
  return row;
}
