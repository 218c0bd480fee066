/**
 * The responses the gateway produced (a Responses request run over a chat API), kept in the key-value store (the
 * in-process store, or Redis when REDIS_URL is set) under the organisation and the response id, for a TTL
 * (30 days unless configured): `previous_response_id` continues from them, and GET/DELETE /v1/responses/{id} and
 * its input_items are answered from them. A response created with `store: false` is not kept. Each output item is
 * also kept under its own id, for the `item_reference` input items clients send (the Vercel AI SDK does).
 */
import type { KvStore } from '../kv/store.ts';
import type { JsonRecord, ResponseObject } from './types.ts';

export const DEFAULT_RESPONSES_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export interface StoredResponse {
  response: ResponseObject;
  /** every item the model saw (earlier turns included), each with an id */
  input_items: JsonRecord[];
}

export interface ResponsesStore {
  get(organisationId: string, responseId: string): Promise<StoredResponse | undefined>;
  put(organisationId: string, stored: StoredResponse): Promise<void>;
  /** true when it was there */
  delete(organisationId: string, responseId: string): Promise<boolean>;
  /** an output item of a stored response, by its id */
  item(organisationId: string, itemId: string): Promise<JsonRecord | undefined>;
}

const keyOf = (organisationId: string, responseId: string) => `responses:${organisationId}:${responseId}`;
const itemKeyOf = (organisationId: string, itemId: string) => `responses:${organisationId}:item:${itemId}`;

export function createResponsesStore(kv: KvStore, ttlMs = DEFAULT_RESPONSES_TTL_MS): ResponsesStore {
  return {
    async get(organisationId, responseId) {
      const text = await kv.get(keyOf(organisationId, responseId));
      return text === null ? undefined : (JSON.parse(text) as StoredResponse);
    },
    async put(organisationId, stored) {
      await kv.set(keyOf(organisationId, stored.response.id), JSON.stringify(stored), ttlMs);
      await Promise.all(stored.response.output.map((item) => kv.set(itemKeyOf(organisationId, item.id), JSON.stringify(item), ttlMs)));
    },
    async item(organisationId, itemId) {
      const text = await kv.get(itemKeyOf(organisationId, itemId));
      return text === null ? undefined : (JSON.parse(text) as JsonRecord);
    },
    async delete(organisationId, responseId) {
      const key = keyOf(organisationId, responseId);
      const found = (await kv.get(key)) !== null;
      if (found) await kv.del(key);
      return found;
    },
  };
}
