/**
 * Keeps the record of a provider object from the provider's answer (OpenAI's shape, after the adapter's hooks):
 * a create writes it with its owner, and every later answer about it (retrieve, cancel, a list) refreshes its
 * status. Fields the answer does not carry are left as they were.
 */
import type { Db } from '../../storage/database.ts';
import { saveBatch, saveFile, saveFineTuningJob, updateBatch, updateFile, updateFineTuningJob, type BatchRow, type FileRow, type FineTuningJobRow } from '../../storage/repositories/files-batches.ts';
import type { Owner } from './owner.ts';

type Json = Readonly<Record<string, unknown>>;

const text = (object: Json, name: string): string | undefined => (typeof object[name] === 'string' ? (object[name] as string) : undefined);
const count = (object: Json, name: string): number | undefined => {
  const value = object[name];
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
};

/** Only the fields the answer has: undefined ones would overwrite what the record knows with nothing. */
function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function fileFields(object: Json) {
  return defined({ filename: text(object, 'filename'), purpose: text(object, 'purpose'), bytes: count(object, 'bytes'), status: text(object, 'status') });
}

function batchFields(object: Json) {
  return defined({ endpoint: text(object, 'endpoint'), inputFileId: text(object, 'input_file_id'), outputFileId: text(object, 'output_file_id'), status: text(object, 'status') });
}

function jobFields(object: Json) {
  return defined({ model: text(object, 'model'), trainingFile: text(object, 'training_file'), fineTunedModel: text(object, 'fine_tuned_model'), status: text(object, 'status') });
}

/** The provider's id of an answer's object; undefined when the answer has none (nothing is recorded then). */
export function objectId(object: Json): string | undefined {
  const id = text(object, 'id');
  // a NUL would not even reach the database: such an answer is relayed, never recorded
  return id && id.length <= 1024 && !/[\u0000-\u001f\u007f]/.test(id) ? id : undefined;
}

/** `location`: where the provider keeps the file when its API does not (a Bedrock batch input's s3:// URI) */
export async function rememberFile(db: Db, owner: Owner, object: Json, uploadedBytes: number | undefined, location?: string): Promise<void> {
  const id = objectId(object);
  if (id === undefined) return;
  await saveFile(db, { ...owner, providerObjectId: id, ...fileFields(object), ...(uploadedBytes !== undefined ? { uploadedBytes } : {}), ...(location !== undefined ? { location } : {}) });
}

export async function rememberBatch(db: Db, owner: Owner, object: Json): Promise<void> {
  const id = objectId(object);
  if (id !== undefined) await saveBatch(db, { ...owner, providerObjectId: id, ...batchFields(object) });
}

export async function rememberFineTuningJob(db: Db, owner: Owner, object: Json): Promise<void> {
  const id = objectId(object);
  if (id !== undefined) await saveFineTuningJob(db, { ...owner, providerObjectId: id, ...jobFields(object) });
}

export async function refreshFile(db: Db, row: FileRow, object: Json): Promise<void> {
  await updateFile(db, row.id, fileFields(object));
}

export async function forgetFile(db: Db, row: FileRow, at: Date): Promise<void> {
  await updateFile(db, row.id, { deletedAt: at, status: 'deleted' });
}

/**
 * A batch's answer refreshes its record; the output and error files it names become the workspace's files (the
 * provider wrote them, the batch's owner may read them).
 */
export async function refreshBatch(db: Db, row: BatchRow, object: Json): Promise<void> {
  await updateBatch(db, row.id, batchFields(object));
  const owner = { organisationId: row.organisationId, workspaceId: row.workspaceId, apiKeyId: row.apiKeyId, userId: row.userId, provider: row.provider, providerSlug: row.providerSlug, integrationId: row.integrationId };
  for (const name of ['output_file_id', 'error_file_id']) {
    const id = text(object, name);
    if (id !== undefined && objectId({ id }) !== undefined) await saveFile(db, { ...owner, providerObjectId: id, purpose: 'batch_output' });
  }
}

export async function refreshFineTuningJob(db: Db, row: FineTuningJobRow, object: Json): Promise<void> {
  await updateFineTuningJob(db, row.id, jobFields(object));
}
