/** The pub/sub channel that tells every node a secret reference changed (its cached rows are dropped). */
import { announceInvalidation } from '../../kv/invalidated-cache.ts';
import type { KvStore } from '../../kv/store.ts';

export const SECRET_REFERENCES_CHANGED = 'secret_references.changed';

export async function announceSecretReferenceChange(kv: KvStore): Promise<void> {
  await announceInvalidation(kv, SECRET_REFERENCES_CHANGED);
}
