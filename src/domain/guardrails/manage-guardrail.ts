/** Updates and deletes (archives) a guardrail the caller manages. */
import type { Principal } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import type { CheckRegistry } from '../../guardrails/registry.ts';
import type { Db } from '../../storage/database.ts';
import { updateGuardrailRow, type GuardrailRow } from '../../storage/repositories/guardrails.ts';
import { actorId, managedGuardrail } from './access.ts';
import { normaliseActions, normaliseChecks } from './definition.ts';
import type { UpdateGuardrailInput } from './inputs.ts';

/** A PUT replaces what it names: `checks` as a whole list, `actions` as a whole (omitted fields take their defaults). */
export async function updateGuardrail(
  db: Db,
  principal: Principal,
  idOrSlug: string,
  body: UpdateGuardrailInput,
  registry: CheckRegistry,
): Promise<GuardrailRow> {
  const row = await managedGuardrail(db, principal, idOrSlug, 'update');
  const updated = await updateGuardrailRow(db, row.id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.checks !== undefined ? { checks: normaliseChecks(body.checks, registry) } : {}),
    ...(body.actions !== undefined ? { actions: { ...normaliseActions(body.actions) } } : {}),
    updatedBy: actorId(principal),
  });
  if (!updated) throw notFound(`Guardrail "${idOrSlug}" not found.`, 'guardrail_not_found');
  return updated;
}

/**
 * DELETE archives (api-surface §6.6: guardrails carry status active|archived): the row stays for the record, but
 * the guardrail is no longer found, listed or resolved, and its slug is free again.
 */
export async function deleteGuardrail(db: Db, principal: Principal, idOrSlug: string): Promise<GuardrailRow> {
  const row = await managedGuardrail(db, principal, idOrSlug, 'delete');
  const archived = await updateGuardrailRow(db, row.id, { status: 'archived', updatedBy: actorId(principal) });
  if (!archived) throw notFound(`Guardrail "${idOrSlug}" not found.`, 'guardrail_not_found');
  return archived;
}
