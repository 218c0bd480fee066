/**
 * Prompts for the data plane: every render and completion reads the addressed version and its partials, so they
 * are loaded once and held in process (src/kv/invalidated-cache.ts), never read from the database per request.
 * A prompt change (create, update, delete, makeDefault, a label move) drops every node's copies at once; so must
 * a change to partials or labels (announcePromptChange). The cache's TTL bounds any missed message.
 */
import { announceInvalidation, createInvalidatedCache } from '../../kv/invalidated-cache.ts';
import type { KvStore } from '../../kv/store.ts';
import type { Db } from '../../storage/database.ts';
import { addressKey, type PromptAddress } from './address.ts';
import { loadRunnablePrompt, type LoadedPrompt } from './load-prompt.ts';

const CHANGED = 'prompts.changed';

export interface SavedPrompts {
  /** The addressed prompt version of the organisation (a slug of `workspaceId` first), or what is missing. */
  resolve(organisationId: string, workspaceId: string, address: PromptAddress): Promise<LoadedPrompt>;
  close(): Promise<void>;
}

/** Tells every node (this one included) that prompts, their partials or their labels changed. */
export async function announcePromptChange(kv: KvStore): Promise<void> {
  await announceInvalidation(kv, CHANGED);
}

export async function createSavedPrompts(db: Db, kv: KvStore, options: { ttlMs?: number } = {}): Promise<SavedPrompts> {
  const cache = await createInvalidatedCache<LoadedPrompt>(kv, CHANGED, { max: 5_000, ...options });
  return {
    resolve: (organisationId, workspaceId, address) =>
      cache.get(`${organisationId}\u0000${workspaceId}\u0000${addressKey(address)}`, () => loadRunnablePrompt(db, organisationId, workspaceId, address)),
    close: () => cache.close(),
  };
}
