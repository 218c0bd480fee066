/**
 * The scripts a worker may run on the primary's store. A worker names a script by a digest of its Lua; the primary
 * runs the twin registered here. A script missing from this list fails loudly in a cluster (test/runtime/cluster
 * checks every script the gateway defines is here).
 */
import { createHash } from 'node:crypto';
import type { KvScript } from '../../kv/store.ts';
import { READ_SCRIPT, RESERVE_SCRIPT, RESET_SCRIPT, SETTLE_SCRIPT } from '../../limits/budgets-script.ts';
import { ADD_SCRIPT, TAKE_SCRIPT } from '../../limits/rate-limit-scripts.ts';
import { RATE_READ_SCRIPT } from '../../limits/rate-limit-usage.ts';

export const CLUSTER_SCRIPTS: readonly KvScript[] = [TAKE_SCRIPT, ADD_SCRIPT, RESERVE_SCRIPT, SETTLE_SCRIPT, RESET_SCRIPT, READ_SCRIPT, RATE_READ_SCRIPT];

const ids = new WeakMap<KvScript, string>();

export function scriptId(script: KvScript): string {
  let id = ids.get(script);
  if (!id) {
    id = createHash('sha1').update(script.lua).digest('hex');
    ids.set(script, id);
  }
  return id;
}

export function scriptRegistry(scripts: readonly KvScript[] = CLUSTER_SCRIPTS): Map<string, KvScript> {
  return new Map(scripts.map((script) => [scriptId(script), script]));
}
