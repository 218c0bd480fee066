/**
 * Resolving a saved guardrail for the request pipeline: a config's `input_guardrails` / `output_guardrails` (and a
 * workspace's defaults) name guardrails by id or slug. The caller caches the result in process.
 */
import type { Db } from '../../storage/database.ts';
import { findGuardrail } from '../../storage/repositories/guardrails.ts';
import type { GuardrailActions, StoredCheck } from './definition.ts';

export interface LoadedGuardrail {
  id: string;
  slug: string;
  name: string;
  /** null: organisation-wide */
  workspaceId: string | null;
  /** validated when stored; `is_enabled` and `parameters` always set */
  checks: StoredCheck[];
  /** every default filled in */
  actions: GuardrailActions;
  /** changes on every update: a cache can compare it */
  updatedAt: Date;
}

/**
 * The active guardrail `idOrSlug` of the organisation, as a request of `workspaceId` may use it: one of that
 * workspace or an organisation-wide one. Undefined otherwise (unknown, archived, or another workspace's).
 * `workspaceId` null resolves organisation-wide guardrails only.
 */
export async function loadGuardrail(
  db: Db,
  organisationId: string,
  workspaceId: string | null,
  idOrSlug: string,
): Promise<LoadedGuardrail | undefined> {
  const row = await findGuardrail(db, organisationId, idOrSlug);
  if (!row || (row.workspaceId !== null && row.workspaceId !== workspaceId)) return undefined;
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    workspaceId: row.workspaceId,
    checks: row.checks as StoredCheck[],
    actions: row.actions as unknown as GuardrailActions,
    updatedAt: row.updatedAt,
  };
}
