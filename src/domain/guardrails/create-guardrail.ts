/**
 * Creates a guardrail. Workspace keys create in their own workspace (managers only); admin keys in any workspace,
 * or organisation-wide when no workspace is named. The checks are validated by the check registry; a taken slug
 * is a 409. Anything wrong leaves nothing behind (the caller's transaction).
 */
import type { Principal } from '../../core/context.ts';
import { conflict, invalidParam } from '../../core/errors.ts';
import type { CheckRegistry } from '../../guardrails/registry.ts';
import type { Db } from '../../storage/database.ts';
import { guardrailSlugTaken, insertGuardrail, type GuardrailRow } from '../../storage/repositories/guardrails.ts';
import { isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { chooseSlug, prefixedSlug, randomHex6 } from '../slugs.ts';
import { targetWorkspace } from '../workspaces/access.ts';
import { actorId, requireGuardrailManager } from './access.ts';
import { normaliseActions, normaliseChecks } from './definition.ts';
import type { CreateGuardrailInput } from './inputs.ts';

/** `pg-<name, slugified, at most 10 chars>-<6 hex>`, as in the reference's examples (`pg-patron-1d0224`). */
export function generateGuardrailSlug(name: string, randomHex: () => string = randomHex6): string {
  return prefixedSlug('pg', name, 10, 'guardrail', randomHex);
}

function chooseGuardrailSlug(db: Db, organisationId: string, name: string, requested: string | undefined): Promise<string> {
  return chooseSlug({
    requested,
    generate: () => generateGuardrailSlug(name),
    taken: (slug) => guardrailSlugTaken(db, organisationId, slug),
    resource: 'a guardrail',
    conflictCode: 'guardrail_slug_taken',
  });
}

export async function createGuardrail(
  db: Db,
  principal: Principal,
  body: CreateGuardrailInput,
  registry: CheckRegistry,
): Promise<GuardrailRow> {
  if (body.organisation_id !== undefined && body.organisation_id.toLowerCase() !== principal.organisationId) {
    throw invalidParam('organisation_id', 'organisation_id must be the caller\'s organisation.');
  }
  const workspaceId = await targetWorkspace(db, principal, body.workspace_id);
  requireGuardrailManager(principal, workspaceId, 'create');
  const checks = normaliseChecks(body.checks, registry);
  const slug = await chooseGuardrailSlug(db, principal.organisationId, body.name, body.slug);
  try {
    return await insertGuardrail(db, {
      organisationId: principal.organisationId,
      workspaceId,
      slug,
      name: body.name,
      checks,
      actions: { ...normaliseActions(body.actions) },
      createdBy: actorId(principal),
    });
  } catch (error) {
    // a concurrent create took the slug between the check and the insert
    if (isUniqueViolation(error)) throw conflict(`A guardrail with slug "${slug}" already exists.`, 'guardrail_slug_taken');
    throw error;
  }
}
