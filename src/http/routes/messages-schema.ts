/**
 * The Messages API request bodies (POST /v1/messages and /v1/messages/count_tokens), checked before any provider:
 * what the gateway reads (model, max_tokens, messages and their roles, system, stream, tools). Objects are open:
 * everything else (cache_control, thinking, metadata, betas' fields) goes to the provider untouched.
 * https://docs.anthropic.com/en/api/messages
 */
import { Type } from '@sinclair/typebox';
import { Model, OPEN, StringEnum } from '../../core/schemas/common.ts';
import { makeValidator } from '../schemas/validate.ts';

const Block = Type.Object({ type: Type.String({ minLength: 1 }) }, OPEN);
const Content = Type.Union([Type.String(), Type.Array(Block)]);

const Message = Type.Object({ role: StringEnum(['user', 'assistant'] as const), content: Content }, OPEN);

const Tool = Type.Object({ name: Type.String({ minLength: 1 }) }, OPEN);

const common = {
  model: Model,
  messages: Type.Array(Message),
  system: Type.Optional(Type.Union([Type.String(), Type.Array(Block)])),
  tools: Type.Optional(Type.Array(Tool)),
  tool_choice: Type.Optional(Type.Object({ type: StringEnum(['auto', 'any', 'tool', 'none'] as const) }, OPEN)),
};

export const MessagesRequestSchema = Type.Object(
  {
    ...common,
    max_tokens: Type.Integer({ minimum: 1 }),
    stream: Type.Optional(Type.Boolean()),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_k: Type.Optional(Type.Integer({ minimum: 0 })),
    stop_sequences: Type.Optional(Type.Array(Type.String())),
    metadata: Type.Optional(Type.Object({}, OPEN)),
  },
  OPEN,
);

export const CountTokensRequestSchema = Type.Object(common, OPEN);

export const validateMessages = makeValidator(MessagesRequestSchema, () => {});
export const validateCountTokens = makeValidator(CountTokensRequestSchema, () => {});
