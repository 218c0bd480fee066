/**
 * The organisation-wide labels every organisation starts with, made the first time its labels are listed (so
 * organisations made before prompts existed get them too). Once the organisation has had any label, nothing is
 * added again: a label someone deleted stays deleted.
 */
import type { Db } from '../../storage/database.ts';
import { insertLabelsIfAbsent, organisationHasLabels } from '../../storage/repositories/labels.ts';

export const UNIVERSAL_LABELS = [
  { name: 'production', description: 'The version served in production', colorCode: '#16A34A' },
  { name: 'staging', description: 'The version under test before production', colorCode: '#D97706' },
  { name: 'development', description: 'The version being worked on', colorCode: '#2563EB' },
] as const;

/** `created_by` of the labels no one created */
export const SYSTEM_ACTOR = 'system';

export async function ensureUniversalLabels(db: Db, organisationId: string): Promise<void> {
  if (await organisationHasLabels(db, organisationId)) return;
  await insertLabelsIfAbsent(db, UNIVERSAL_LABELS.map((label) => ({
    organisationId,
    workspaceId: null,
    name: label.name,
    description: label.description,
    colorCode: label.colorCode,
    isUniversal: true,
    createdBy: SYSTEM_ACTOR,
  })));
}
