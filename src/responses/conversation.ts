/**
 * A conversation the gateway keeps: `previous_response_id` naming a stored response becomes that response's input
 * items and output, then the new input (instructions do not carry over, as in OpenAI's API); the stored input
 * items each get an id; input_items pages through them with OpenAI's cursor (limit, order, after, before).
 */
import { invalidParam } from '../core/errors.ts';
import { inputItemsOf } from './to-chat.ts';
import type { StoredResponse } from './store.ts';
import type { JsonRecord, ResponseObject, ResponsesIds, ResponsesRequest } from './types.ts';

/** An item of the stored conversation without the gateway's ids: a native provider would look them up and fail. */
function withoutId(item: JsonRecord): JsonRecord {
  const { id: _id, status: _status, ...rest } = item;
  return rest;
}

/** The request with the stored conversation before its own input, and `previous_response_id` resolved away. */
export function continueConversation(request: ResponsesRequest, previous: StoredResponse): ResponsesRequest {
  const history = [...previous.input_items, ...(previous.response.output as unknown as JsonRecord[])].map(withoutId);
  const expanded: ResponsesRequest = { ...request, input: [...history, ...inputItemsOf(request)] };
  delete expanded.previous_response_id;
  return expanded;
}

/** `item_reference` input items replaced by the stored items they name; the request itself when none is stored. */
export async function resolveReferences(request: ResponsesRequest, itemOf: (id: string) => Promise<JsonRecord | undefined>): Promise<ResponsesRequest> {
  if (!Array.isArray(request.input) || !request.input.some((item) => item.type === 'item_reference')) return request;
  let changed = false;
  const input = await Promise.all(request.input.map(async (item) => {
    if (item.type !== 'item_reference' || typeof item.id !== 'string') return item;
    const found = await itemOf(item.id);
    if (found) changed = true;
    return found ?? item;
  }));
  return changed ? { ...request, input } : request;
}

const ID_PREFIX: Readonly<Record<string, string>> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' };

/** The input items as stored and listed: each with an id (the client's, or a new one) and a message's status. */
export function identifiedItems(request: ResponsesRequest, ids: ResponsesIds): JsonRecord[] {
  return inputItemsOf(request).map((item) => {
    const type = typeof item.type === 'string' ? item.type : 'message';
    const identified: JsonRecord = { ...item, type, id: typeof item.id === 'string' ? item.id : ids.newId(ID_PREFIX[type] ?? 'item') };
    if (type === 'message' && typeof item.content === 'string') identified.content = [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content }];
    return identified;
  });
}

export function storedOf(request: ResponsesRequest, response: ResponseObject, ids: ResponsesIds): StoredResponse {
  return { response, input_items: identifiedItems(request, ids) };
}

export interface InputItemsPage {
  object: 'list';
  data: JsonRecord[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** OpenAI's default order for input items is newest first. */
export function pageOfItems(items: readonly JsonRecord[], query: { limit: number; order: 'asc' | 'desc'; after?: string | undefined; before?: string | undefined }): InputItemsPage {
  let ordered = query.order === 'desc' ? [...items].reverse() : [...items];
  const position = (id: string, param: string) => {
    const index = ordered.findIndex((item) => item.id === id);
    if (index < 0) throw invalidParam(param, `No input item with id '${id}' in this response.`);
    return index;
  };
  if (query.after !== undefined) ordered = ordered.slice(position(query.after, 'after') + 1);
  if (query.before !== undefined) ordered = ordered.slice(0, position(query.before, 'before'));
  const data = ordered.slice(0, query.limit);
  return {
    object: 'list',
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: ordered.length > data.length,
  };
}
