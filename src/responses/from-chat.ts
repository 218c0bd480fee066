/**
 * The canonical chat answer -> a Response object: thinking blocks -> a reasoning item (the signature kept as
 * encrypted_content), the text -> a message item, tool calls -> function_call items; the usage in Responses
 * terms; a `length` finish -> status incomplete (max_output_tokens). The request's settings are echoed as OpenAI
 * echoes them. https://platform.openai.com/docs/api-reference/responses/object
 */
import type { ChatCompletion, ContentBlock, FinishReason, Usage } from '../core/openai-types.ts';
import type { FunctionCallItem, OutputItem, ReasoningItem, ResponseObject, ResponsesIds, ResponsesRequest, ResponseUsage } from './types.ts';

/** What an answer contributes, whether read whole or assembled from a stream. */
export interface AnswerParts {
  id: string;
  createdAt: number;
  model: string;
  output: OutputItem[];
  usage: ResponseUsage | null;
  finishReason: FinishReason | null;
}

export function usageOf(usage: Usage | null | undefined): ResponseUsage | null {
  if (!usage) return null;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
  };
}

/** The Response object: the answer's parts and the request's settings. */
export function responseOf(request: ResponsesRequest, parts: AnswerParts, status: ResponseObject['status'] = statusOf(parts.finishReason)): ResponseObject {
  return {
    id: parts.id,
    object: 'response',
    created_at: parts.createdAt,
    status,
    error: null,
    incomplete_details: incompleteOf(parts.finishReason, status),
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: parts.model,
    output: parts.output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    store: request.store ?? true,
    temperature: request.temperature ?? 1,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? 1,
    truncation: request.truncation ?? 'disabled',
    usage: parts.usage,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}

function statusOf(finish: FinishReason | null): ResponseObject['status'] {
  return finish === 'length' || finish === 'content_filter' ? 'incomplete' : 'completed';
}

function incompleteOf(finish: FinishReason | null, status: ResponseObject['status']): ResponseObject['incomplete_details'] {
  if (status !== 'incomplete') return null;
  return { reason: finish === 'content_filter' ? 'content_filter' : 'max_output_tokens' };
}

export function reasoningItemOf(id: string, blocks: readonly ContentBlock[]): ReasoningItem | undefined {
  const thinking = blocks.filter((block) => block.type === 'thinking');
  if (thinking.length === 0) return undefined;
  const signature = thinking.map((block) => block.signature).find((value) => typeof value === 'string');
  return {
    id,
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: thinking.map((block) => block.thinking).join('') }],
    ...(signature ? { encrypted_content: signature } : {}),
  };
}

export function chatToResponse(chat: ChatCompletion, request: ResponsesRequest, ids: ResponsesIds): ResponseObject {
  const choice = chat.choices?.[0];
  const message = choice?.message;
  const output: OutputItem[] = [];
  const reasoning = reasoningItemOf(ids.newId('rs'), message?.content_blocks ?? []);
  if (reasoning) output.push(reasoning);
  const text = typeof message?.content === 'string' ? message.content : '';
  if (text !== '' || !message?.tool_calls?.length) {
    const status = choice?.finish_reason === 'length' ? 'incomplete' : 'completed';
    output.push({ id: ids.newId('msg'), type: 'message', role: 'assistant', status, content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] });
  }
  for (const call of message?.tool_calls ?? []) {
    const item: FunctionCallItem = { id: ids.newId('fc'), type: 'function_call', status: 'completed', call_id: call.id, name: call.function.name, arguments: call.function.arguments };
    output.push(item);
  }
  return responseOf(request, {
    id: ids.newId('resp'),
    createdAt: typeof chat.created === 'number' ? chat.created : ids.now(),
    model: typeof chat.model === 'string' ? chat.model : request.model,
    output,
    usage: usageOf(chat.usage),
    finishReason: choice?.finish_reason ?? null,
  });
}
