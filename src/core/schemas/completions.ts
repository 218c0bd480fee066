/** POST /completions (legacy) request body. Unknown fields are allowed and forwarded untouched. */
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
  Temperature,
  TopP,
} from './common.ts';

/** A string, an array of strings, an array of token ids, or an array of token-id arrays. `null` is rejected. */
export const CompletionPromptSchema = Type.Union([
  Type.String(),
  Type.Array(Type.String()),
  Type.Array(Type.Integer()),
  Type.Array(Type.Array(Type.Integer())),
]);

export const CompletionRequestSchema = Type.Object(
  {
    model: Model,
    prompt: CompletionPromptSchema,
    /** Not allowed with `stream: true`, and must exceed `n` when both are set (checked after the schema). */
    best_of: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
    echo: Type.Optional(NullableBoolean),
    frequency_penalty: Type.Optional(Penalty),
    presence_penalty: Type.Optional(Penalty),
    logit_bias: Type.Optional(LogitBias),
    logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 5 }))),
    max_tokens: Type.Optional(MaxTokens),
    n: Type.Optional(ChoiceCount),
    seed: Type.Optional(Seed),
    stop: Type.Optional(Stop),
    stream: Type.Optional(NullableBoolean),
    stream_options: Type.Optional(StreamOptions),
    suffix: Type.Optional(Nullable(Type.String())),
    temperature: Type.Optional(Temperature),
    top_p: Type.Optional(TopP),
    user: Type.Optional(Type.String()),
  },
  OPEN,
);
