/**
 * Creates a guardrail. Workspace keys create in their own workspace (managers only); admin keys in any workspace,
 * or organisation-wide when no workspace is named. The checks are validated by the check registry; a taken slug
 * is a 409. Anything wrong leaves nothing behind (the caller's transaction).
 */
import { randomBytes } from 'node:crypto';
import type { Principal } from '../../core/context.ts';
import { conflict, invalidParam, notFound } from '../../core/errors.ts';
import type { CheckRegistry } from '../../guardrails/registry.ts';
import type { CreateGuardrailBody } from '../../http/admin/guardrails/schemas.ts';
import { isUuid } from '../../http/admin/params.ts';
import type { Db } from '../../storage/database.ts';
import { guardrailSlugTaken, insertGuardrail, type GuardrailRow } from '../../storage/repositories/guardrails.ts';
import { findWorkspace, isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { actorId, requireGuardrailManager } from './access.ts';
import { normaliseActions, normaliseChecks } from './definition.ts';

const SLUG_ATTEMPTS = 5;

/** `pg-<name, slugified, at most 10 chars>-<6 hex>`, as in the reference's examples (`pg-patron-1d0224`). */
export function generateGuardrailSlug(name: string, randomHex: () => string = () => randomBytes(3).toString('hex')): string {
  const stem = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 10)
    .replace(/-+$/, '');
  return `pg-${stem || 'guardrail'}-${randomHex()}`;
}

async function chooseSlug(db: Db, organisationId: string, name: string, requested: string | undefined): Promise<string> {
  if (requested !== undefined) {
    // {guardrailId} is read as an id when it looks like one, so a UUID-shaped slug could never be addressed
    if (isUuid(requested)) throw invalidParam('slug', 'slug must not have the form of a UUID.');
    if (await guardrailSlugTaken(db, organisationId, requested)) throw conflict(`A guardrail with slug "${requested}" already exists.`, 'guardrail_slug_taken');
    return requested;
  }
  for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt += 1) {
    const slug = generateGuardrailSlug(name);
    if (!(await guardrailSlugTaken(db, organisationId, slug))) return slug;
  }
  throw conflict('Could not generate a free guardrail slug; give one explicitly.', 'guardrail_slug_taken');
}

/** The workspace the guardrail goes to: null is organisation-wide. */
async function targetWorkspace(db: Db, principal: Principal, workspaceParam: string | undefined): Promise<string | null> {
  if (workspaceParam === undefined) return principal.keyType === 'workspace' ? principal.workspaceId : null;
  const workspace = await findWorkspace(db, principal.organisationId, workspaceParam);
  if (!workspace || (principal.keyType === 'workspace' && workspace.id !== principal.workspaceId)) {
    throw notFound(`Workspace "${workspaceParam}" not found.`, 'workspace_not_found');
  }
  return workspace.id;
}

export async function createGuardrail(
  db: Db,
  principal: Principal,
  body: CreateGuardrailBody,
  registry: CheckRegistry,
): Promise<GuardrailRow> {
  if (body.organisation_id !== undefined && body.organisation_id.toLowerCase() !== principal.organisationId) {
    throw invalidParam('organisation_id', 'organisation_id must be the caller\'s organisation.');
  }
  const workspaceId = await targetWorkspace(db, principal, body.workspace_id);
  requireGuardrailManager(principal, workspaceId, 'create');
  const checks = normaliseChecks(body.checks, registry);
  const slug = await chooseSlug(db, principal.organisationId, body.name, body.slug);
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
