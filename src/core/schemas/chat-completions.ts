/** POST /chat/completions request body. Unknown fields are allowed and forwarded untouched. */
import { Type } from '@sinclair/typebox';
import {
  ChoiceCount,
  LogitBias,
  MaxTokens,
  Model,
  Nullable,
  NullableBoolean,
  OPEN,
  Penalty,
  Seed,
  Stop,
  StreamOptions,
  StringEnum,
  Temperature,
  TopP,
} from './common.ts';

export const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

export const ChatMessageSchema = Type.Object({ role: StringEnum(CHAT_ROLES) }, OPEN);

export const ChatToolSchema = Type.Object(
  {
    type: Type.Literal('function'),
    function: Type.Object(
      {
        name: Type.String(),
        description: Type.Optional(Type.String()),
        parameters: Type.Optional(Type.Object({}, OPEN)),
        strict: Type.Optional(NullableBoolean),
      },
      OPEN,
    ),
  },
  OPEN,
);

export const ChatToolChoiceSchema = Type.Union([
  StringEnum(['none', 'auto', 'required'] as const),
  Type.Object({ type: Type.Literal('function'), function: Type.Object({ name: Type.String() }, OPEN) }, OPEN),
]);

/** Deprecated function-calling fields, still accepted by OpenAI. */
export const ChatFunctionCallSchema = Type.Union([
  StringEnum(['none', 'auto'] as const),
  Type.Object({ name: Type.String() }, OPEN),
]);
export const ChatFunctionSchema = Type.Object({ name: Type.String() }, OPEN);

export const ChatCompletionRequestSchema = Type.Object(
  {
    model: Model,
    messages: Type.Array(ChatMessageSchema, { minItems: 1 }),
    frequency_penalty: Type.Optional(Penalty),
    presence_penalty: Type.Optional(Penalty),
    logit_bias: Type.Optional(LogitBias),
    logprobs: Type.Optional(NullableBoolean),
    /** Only allowed when `logprobs` is true (checked after the schema). */
    top_logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
    max_tokens: Type.Optional(MaxTokens),
    max_completion_tokens: Type.Optional(MaxTokens),
    n: Type.Optional(ChoiceCount),
    response_format: Type.Optional(
      Type.Object({ type: StringEnum(['text', 'json_object', 'json_schema'] as const) }, OPEN),
    ),
    seed: Type.Optional(Seed),
    stop: Type.Optional(Stop),
    stream: Type.Optional(NullableBoolean),
    stream_options: Type.Optional(StreamOptions),
    thinking: Type.Optional(
      Nullable(Type.Object({ type: Type.String(), budget_tokens: Type.Optional(Type.Integer()) }, OPEN)),
    ),
    temperature: Type.Optional(Temperature),
    top_p: Type.Optional(TopP),
    tools: Type.Optional(Type.Array(ChatToolSchema, { maxItems: 128 })),
    tool_choice: Type.Optional(ChatToolChoiceSchema),
    parallel_tool_calls: Type.Optional(Type.Boolean()),
    user: Type.Optional(Type.String()),
    function_call: Type.Optional(ChatFunctionCallSchema),
    functions: Type.Optional(Type.Array(ChatFunctionSchema, { minItems: 1, maxItems: 128 })),
  },
  OPEN,
);
