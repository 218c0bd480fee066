/**
 * A provider's list cut down to what the caller's workspace created through the gateway: several workspaces may
 * share one provider account, and none sees another's files, batches or jobs. The provider's paging is kept
 * (`has_more`); `first_id` and `last_id` name the kept page's ends.
 */
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { ownedIds, type RecordKind } from '../../storage/repositories/files-batches.ts';
import { objectId } from './remember.ts';

type Json = Readonly<Record<string, unknown>>;

export async function scopeList(db: Db, kind: RecordKind, principal: Principal, provider: string, list: Json, data: readonly Json[]): Promise<Record<string, unknown>> {
  const ids = data.map(objectId).filter((id): id is string => id !== undefined);
  const owned = await ownedIds(db, kind, principal.workspaceId, provider, ids);
  const kept = data.filter((object) => owned.has(objectId(object) ?? ''));
  const scoped: Record<string, unknown> = { ...list, data: kept };
  if ('first_id' in list) scoped.first_id = kept.length > 0 ? objectId(kept[0]!) : null;
  if ('last_id' in list) scoped.last_id = kept.length > 0 ? objectId(kept.at(-1)!) : null;
  return scoped;
}
