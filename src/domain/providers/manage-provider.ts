/**
 * Updates and deletes (archives) a provider the caller manages. `reset_usage: true` restarts its usage count from
 * now (the budgets read `usage_reset_at`). Archiving a virtual key archives the integration that holds its key.
 */
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { updateProviderRow, updateVirtualKeyIntegration, type NewProviderRow, type ProviderRow } from '../../storage/repositories/providers.ts';
import { parseExpiry } from '../api-keys/rules.ts';
import { managedProvider, providerNotFound } from './access.ts';
import { rateLimitList, type ProviderAddress, type UpdateProviderInput } from './inputs.ts';

/** The columns an update body changes; a field left out keeps its value. */
export function providerChanges(body: UpdateProviderInput, now: Date): Partial<NewProviderRow> {
  const changes: Partial<NewProviderRow> = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.note !== undefined) changes.note = body.note;
  if (body.usage_limits !== undefined) changes.usageLimits = body.usage_limits;
  const rateLimits = rateLimitList(body.rate_limits);
  if (rateLimits !== undefined) changes.rateLimits = rateLimits;
  const expiresAt = parseExpiry(body.expires_at, now);
  if (expiresAt !== undefined) changes.expiresAt = expiresAt;
  if (body.reset_usage === true) changes.usageResetAt = now;
  return changes;
}

export async function updateProvider(db: Db, principal: Principal, address: ProviderAddress, body: UpdateProviderInput, now: Date): Promise<ProviderRow> {
  const row = await managedProvider(db, principal, address, 'update');
  const updated = await updateProviderRow(db, row.id, providerChanges(body, now));
  // the row is locked (managedProvider), so it cannot have been archived in between
  if (!updated) throw providerNotFound(address.idOrSlug);
  return updated;
}

/** Archives a provider row (and a virtual key's own integration); the row stays for the record. */
export async function archiveProvider(db: Db, row: ProviderRow, notFound: () => Error): Promise<ProviderRow> {
  const archived = await updateProviderRow(db, row.id, { status: 'archived' });
  if (!archived) throw notFound();
  if (row.isVirtualKey) await updateVirtualKeyIntegration(db, row.integrationId, { status: 'archived' });
  return archived;
}

export async function deleteProvider(db: Db, principal: Principal, address: ProviderAddress): Promise<ProviderRow> {
  const row = await managedProvider(db, principal, address, 'delete');
  return archiveProvider(db, row, () => providerNotFound(address.idOrSlug));
}
