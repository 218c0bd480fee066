/**
 * The OpenAI Responses API shapes the gateway reads and writes when it runs a Responses request over a provider's
 * chat API. https://platform.openai.com/docs/api-reference/responses (the `openai` npm client's
 * resources/responses types are the reference for field names and event names).
 */

export type JsonRecord = Record<string, unknown>;

/** A Responses request as validated (validate.ts): the fields the translation reads; the others are ignored. */
export interface ResponsesRequest {
  model: string;
  input?: string | JsonRecord[];
  instructions?: string | null;
  previous_response_id?: string | null;
  tools?: JsonRecord[];
  tool_choice?: string | JsonRecord;
  text?: { format?: JsonRecord } | null;
  reasoning?: { effort?: string | null; summary?: string | null } | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  parallel_tool_calls?: boolean | null;
  store?: boolean | null;
  stream?: boolean | null;
  metadata?: Record<string, string> | null;
  user?: string | null;
  truncation?: string | null;
  [extra: string]: unknown;
}

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export interface MessageItem {
  id: string;
  type: 'message';
  role: 'assistant';
  status: 'in_progress' | 'completed' | 'incomplete';
  content: OutputText[];
}

export interface FunctionCallItem {
  id: string;
  type: 'function_call';
  status: 'in_progress' | 'completed' | 'incomplete';
  call_id: string;
  name: string;
  arguments: string;
}

export interface ReasoningItem {
  id: string;
  type: 'reasoning';
  summary: Array<{ type: 'summary_text'; text: string }>;
  /** the provider's signature of its thinking (Anthropic, Gemini): sent back on the next turn */
  encrypted_content?: string | null;
}

export type OutputItem = MessageItem | FunctionCallItem | ReasoningItem;

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: 'completed' | 'incomplete' | 'in_progress' | 'failed';
  error: null | { code: string; message: string };
  incomplete_details: null | { reason: 'max_output_tokens' | 'content_filter' };
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: { effort: string | null; summary: string | null };
  store: boolean;
  temperature: number;
  text: { format: JsonRecord };
  tool_choice: unknown;
  tools: JsonRecord[];
  top_p: number;
  truncation: string;
  usage: ResponseUsage | null;
  user: string | null;
  metadata: Record<string, string>;
}

/** Ids and time, injected: `newId('resp')` -> `resp_...`. */
export interface ResponsesIds {
  newId(prefix: string): string;
  /** unix seconds */
  now(): number;
}
