/**
 * The canonical types: the OpenAI wire format is the gateway's own request and response shape. Adapters that
 * translate convert from and to these. Only the fields the gateway reads or writes are typed; everything else
 * passes through as unknown extra fields.
 */
import type { Static } from '@sinclair/typebox';
import type { ChatCompletionRequestSchema } from './schemas/chat-completions.ts';
import type { CompletionRequestSchema } from './schemas/completions.ts';
import type { EmbeddingRequestSchema } from './schemas/embeddings.ts';
import type { RerankRequestSchema } from './schemas/rerank.ts';

export interface TextPart {
  type: 'text';
  text: string;
  /** Anthropic-style prompt caching marker, carried through to providers that support it */
  cache_control?: { type: 'ephemeral'; ttl?: string };
}
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}
export type ContentPart = TextPart | ImagePart | { type: string; [key: string]: unknown };

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  /** Gemini thought signature kept on the assistant turn so it can be sent back */
  thought_signature?: string;
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}
export type ContentBlock = { type: 'text'; text: string } | ThinkingBlock | RedactedThinkingBlock;

export type ChatMessage =
  | { role: 'system' | 'developer'; content: string | TextPart[]; name?: string }
  | { role: 'user'; content: string | ContentPart[]; name?: string }
  | {
      role: 'assistant';
      content?: string | ContentPart[] | null;
      tool_calls?: ToolCall[];
      function_call?: { name: string; arguments: string };
      content_blocks?: ContentBlock[];
      name?: string;
    }
  | { role: 'tool'; content: string | TextPart[]; tool_call_id: string }
  | { role: 'function'; content: string | null; name: string };

export interface FunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
  cache_control?: { type: 'ephemeral'; ttl?: string };
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  n?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  tools?: FunctionTool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: { type: 'text' | 'json_object' | 'json_schema'; json_schema?: { name: string; schema?: Record<string, unknown>; strict?: boolean | null } };
  thinking?: { type: string; budget_tokens?: number } | null;
  user?: string;
  [extra: string]: unknown;
}

/** One definition: the type the validating schema gives (core/schemas/completions.ts). */
export type CompletionRequest = Static<typeof CompletionRequestSchema> & { [extra: string]: unknown };

/**
 * The schema checks what the gateway reads of a chat request (model, messages and their roles, the typed
 * options); ChatRequest describes the messages' parts in more detail for the adapters that translate them. The
 * line below keeps the two one: a canonical request the schema would refuse fails to compile.
 */
type AcceptedBySchema<T extends Static<typeof ChatCompletionRequestSchema>> = T;
export type CheckedChatRequest = AcceptedBySchema<ChatRequest>;

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_creation_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number; accepted_prediction_tokens?: number; rejected_prediction_tokens?: number };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  provider?: string;
  system_fingerprint?: string;
  choices: Array<{
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      tool_calls?: ToolCall[];
      content_blocks?: ContentBlock[];
      refusal?: string | null;
    };
    logprobs: unknown;
    finish_reason: FinishReason | null;
    /** the provider's own finish reason, kept beside the unified one */
    native_finish_reason?: string;
  }>;
  usage?: Usage;
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
  thought_signature?: string;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  provider?: string;
  choices: Array<{
    index: number;
    delta: {
      role?: 'assistant';
      content?: string | null;
      tool_calls?: ToolCallDelta[];
      content_blocks?: Array<{ index: number; delta: Partial<ThinkingBlock> | Partial<RedactedThinkingBlock> | { text: string } }>;
    };
    logprobs?: unknown;
    finish_reason: FinishReason | null;
    native_finish_reason?: string;
  }>;
  usage?: Usage | null;
}

/** One definition: the type the validating schema gives (core/schemas/embeddings.ts). */
export type EmbeddingRequest = Static<typeof EmbeddingRequestSchema> & { [extra: string]: unknown };

export interface EmbeddingResponse {
  object: 'list';
  model: string;
  data: Array<{ object: 'embedding'; index: number; embedding: number[] | string }>;
  usage: { prompt_tokens: number; total_tokens: number };
  provider?: string;
}

/** One definition: the type the validating schema gives (core/schemas/rerank.ts). */
export type RerankRequest = Omit<Static<typeof RerankRequestSchema>, 'documents'> & {
  /** an object document keeps its other fields (title, metadata) for the providers that read them */
  documents: Array<string | { text: string; [key: string]: unknown }>;
  [extra: string]: unknown;
};

export interface RerankResponse {
  object: 'list';
  id?: string;
  model: string;
  provider: string;
  results: Array<{ index: number; relevance_score: number; document?: { text: string } }>;
  usage?: { search_units?: number; total_tokens?: number };
}
