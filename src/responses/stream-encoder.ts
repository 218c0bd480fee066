/**
 * Canonical chat chunks -> Responses stream events, a state machine: response.created and response.in_progress
 * first; then per output item output_item.added, its parts and deltas (reasoning summary text, output_text,
 * function_call_arguments), their `.done` events and output_item.done; last response.completed (or
 * response.incomplete) with the usage. Every event carries the next sequence_number.
 * https://platform.openai.com/docs/api-reference/responses-streaming
 */
import type { ChatCompletionChunk, FinishReason, ToolCallDelta, Usage } from '../core/openai-types.ts';
import { responseOf, usageOf } from './from-chat.ts';
import type { FunctionCallItem, MessageItem, OutputText, OutputItem, ReasoningItem, ResponseObject, ResponsesIds, ResponsesRequest } from './types.ts';

export interface ResponsesEvent {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}

export interface ResponsesStreamEncoder {
  /** the opening events: response.created, response.in_progress */
  start(): ResponsesEvent[];
  push(chunk: unknown): ResponsesEvent[];
  /** closes the open items; the final Response is then `response()`; the last event comes from `complete()` */
  finish(): ResponsesEvent[];
  response(): ResponseObject;
  complete(): ResponsesEvent[];
  /** the stream broke: an `error` event */
  fail(error: { code: string | null; message: string; param: string | null }): ResponsesEvent[];
}

type Open =
  | { kind: 'message'; index: number; item: MessageItem; text: string }
  | { kind: 'reasoning'; index: number; item: ReasoningItem; text: string; signature: string | undefined }
  | { kind: 'call'; index: number; item: FunctionCallItem };

export function createResponsesStreamEncoder(request: ResponsesRequest, ids: ResponsesIds): ResponsesStreamEncoder {
  const id = ids.newId('resp');
  const createdAt = ids.now();
  let model = request.model;
  let sequence = 0;
  const output: OutputItem[] = [];
  const open: Open[] = [];
  /** chat tool call index -> its open item */
  const calls = new Map<number, Extract<Open, { kind: 'call' }>>();
  let finishReason: FinishReason | null = null;
  let usage: Usage | undefined;
  let final: ResponseObject | undefined;

  const event = (type: string, fields: Record<string, unknown>): ResponsesEvent => ({ type, sequence_number: sequence++, ...fields });
  const snapshot = (status: ResponseObject['status']) =>
    responseOf(request, { id, createdAt, model, output: [], usage: null, finishReason: null }, status);

  function close(entry: Open): ResponsesEvent[] {
    const at = { item_id: entry.item.id, output_index: entry.index };
    const events: ResponsesEvent[] = [];
    if (entry.kind === 'message') {
      const part: OutputText = { type: 'output_text', text: entry.text, annotations: [], logprobs: [] };
      entry.item.content = [part];
      entry.item.status = finishReason === 'length' ? 'incomplete' : 'completed';
      events.push(event('response.output_text.done', { ...at, content_index: 0, text: entry.text, logprobs: [] }));
      events.push(event('response.content_part.done', { ...at, content_index: 0, part }));
    } else if (entry.kind === 'reasoning') {
      const part = { type: 'summary_text', text: entry.text } as const;
      entry.item.summary = [part];
      if (entry.signature) entry.item.encrypted_content = entry.signature;
      events.push(event('response.reasoning_summary_text.done', { ...at, summary_index: 0, text: entry.text }));
      events.push(event('response.reasoning_summary_part.done', { ...at, summary_index: 0, part }));
    } else {
      entry.item.status = 'completed';
      events.push(event('response.function_call_arguments.done', { ...at, name: entry.item.name, arguments: entry.item.arguments }));
    }
    output[entry.index] = entry.item;
    events.push(event('response.output_item.done', { output_index: entry.index, item: entry.item }));
    open.splice(open.indexOf(entry), 1);
    return events;
  }

  /** opens an item at the next output index; the text and reasoning items before it are closed first */
  function begin<T extends Open>(entry: Omit<T, 'index'>, events: ResponsesEvent[]): T {
    for (const other of [...open]) if (other.kind !== 'call' || entry.kind !== 'call') events.push(...close(other));
    const opened = { ...entry, index: output.length } as T;
    output.push(opened.item);
    open.push(opened);
    events.push(event('response.output_item.added', { output_index: opened.index, item: structuredClone(opened.item) }));
    return opened;
  }

  function text(delta: string, events: ResponsesEvent[]): void {
    let entry = open.find((candidate) => candidate.kind === 'message');
    if (!entry) {
      entry = begin<Extract<Open, { kind: 'message' }>>({ kind: 'message', item: { id: ids.newId('msg'), type: 'message', role: 'assistant', status: 'in_progress', content: [] }, text: '' }, events);
      events.push(event('response.content_part.added', { item_id: entry.item.id, output_index: entry.index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } }));
    }
    entry.text += delta;
    events.push(event('response.output_text.delta', { item_id: entry.item.id, output_index: entry.index, content_index: 0, delta, logprobs: [] }));
  }

  function thinking(delta: { thinking?: unknown; signature?: unknown }, events: ResponsesEvent[]): void {
    let entry = open.find((candidate) => candidate.kind === 'reasoning');
    if (!entry) {
      entry = begin<Extract<Open, { kind: 'reasoning' }>>({ kind: 'reasoning', item: { id: ids.newId('rs'), type: 'reasoning', summary: [] }, text: '', signature: undefined }, events);
      events.push(event('response.reasoning_summary_part.added', { item_id: entry.item.id, output_index: entry.index, summary_index: 0, part: { type: 'summary_text', text: '' } }));
    }
    if (typeof delta.signature === 'string') entry.signature = (entry.signature ?? '') + delta.signature;
    if (typeof delta.thinking === 'string' && delta.thinking !== '') {
      entry.text += delta.thinking;
      events.push(event('response.reasoning_summary_text.delta', { item_id: entry.item.id, output_index: entry.index, summary_index: 0, delta: delta.thinking }));
    }
  }

  function toolCall(delta: ToolCallDelta, events: ResponsesEvent[]): void {
    let entry = calls.get(delta.index);
    if (!entry) {
      const item: FunctionCallItem = { id: ids.newId('fc'), type: 'function_call', status: 'in_progress', call_id: delta.id ?? ids.newId('call'), name: delta.function?.name ?? '', arguments: '' };
      entry = begin<Extract<Open, { kind: 'call' }>>({ kind: 'call', item }, events);
      calls.set(delta.index, entry);
    }
    const piece = delta.function?.arguments;
    if (typeof piece === 'string' && piece !== '') {
      entry.item.arguments += piece;
      events.push(event('response.function_call_arguments.delta', { item_id: entry.item.id, output_index: entry.index, delta: piece }));
    }
  }

  const finalResponse = (): ResponseObject => {
    if (!final) throw new Error('the stream has not finished');
    return final;
  };

  return {
    start: () => [event('response.created', { response: snapshot('in_progress') }), event('response.in_progress', { response: snapshot('in_progress') })],
    push(raw: unknown): ResponsesEvent[] {
      const chunk = raw as Partial<ChatCompletionChunk>;
      const events: ResponsesEvent[] = [];
      if (typeof chunk.model === 'string' && chunk.model !== '') model = chunk.model;
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
      if (!choice) return events;
      const delta = choice.delta ?? {};
      for (const block of delta.content_blocks ?? []) thinking(block.delta as { thinking?: unknown; signature?: unknown }, events);
      if (typeof delta.content === 'string' && delta.content !== '') text(delta.content, events);
      for (const call of delta.tool_calls ?? []) toolCall(call, events);
      if (choice.finish_reason) finishReason = choice.finish_reason;
      return events;
    },
    finish(): ResponsesEvent[] {
      const events: ResponsesEvent[] = [];
      for (const entry of [...open].sort((a, b) => a.index - b.index)) events.push(...close(entry));
      final = responseOf(request, { id, createdAt, model, output, usage: usageOf(usage), finishReason });
      return events;
    },
    response: finalResponse,
    complete(): ResponsesEvent[] {
      const response = finalResponse();
      return [event(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response })];
    },
    fail: (error) => [event('error', { code: error.code, message: error.message, param: error.param })],
  };
}
