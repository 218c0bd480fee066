/**
 * Render and completions (api-surface §2.6): the addressed version's messages filled in with the request's
 * variables, and the chat request they make: the version's parameters, model, tools, tool_choice and functions,
 * then the request's `hyperparameters` over them, then `stream`. Render answers with that request; completions
 * sends it through the same pipeline as POST /v1/chat/completions.
 */
import { canAccessWorkspace } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import { promptNotFound } from './access.ts';
import type { PromptAddress } from './address.ts';
import type { RunPromptInput } from './inputs.ts';
import type { RunnablePrompt } from './load-prompt.ts';
import { versionNotFound } from './manage-prompt.ts';
import { renderPrompt, type RenderedMessage } from './render.ts';
import type { SavedPrompts } from './saved-prompts.ts';

/** the rendered template is the request's messages: hyperparameters cannot replace them */
const NOT_HYPERPARAMETERS = ['messages', 'prompt'] as const;

export interface PreparedRun {
  prompt: RunnablePrompt;
  /** the chat completions request the version makes */
  request: Record<string, unknown>;
}

export function buildChatRequest(prompt: RunnablePrompt, messages: RenderedMessage[], input: RunPromptInput): Record<string, unknown> {
  const hyperparameters = input.hyperparameters ?? {};
  for (const key of NOT_HYPERPARAMETERS) {
    if (Object.hasOwn(hyperparameters, key)) throw invalidParam(`hyperparameters.${key}`, `hyperparameters.${key} cannot be sent: the prompt's template gives the messages.`);
  }
  const { fields } = prompt.version;
  const saved: Record<string, unknown> = { ...fields.parameters };
  if (fields.model !== null) saved.model = fields.model;
  if (fields.tools?.length) saved.tools = fields.tools;
  if (fields.toolChoice !== null && fields.toolChoice !== undefined) saved.tool_choice = fields.toolChoice;
  if (fields.functions?.length) saved.functions = fields.functions;
  // spreads, not Object.assign: a `__proto__` key of the JSON body stays a plain field
  const { stream: hyperStream, ...overrides } = hyperparameters;
  const request: Record<string, unknown> = { ...saved, ...overrides, messages };
  const stream = input.stream ?? hyperStream;
  if (stream !== undefined) request.stream = stream;
  return request;
}

export async function preparePromptRun(prompts: SavedPrompts, principal: Principal, address: PromptAddress, input: RunPromptInput): Promise<PreparedRun> {
  const loaded = await prompts.resolve(principal.organisationId, principal.workspaceId, address);
  if ('missing' in loaded) {
    if (loaded.missing === 'prompt') throw promptNotFound(address.prompt);
    const { version } = address;
    throw versionNotFound(`${address.prompt}@${version.kind === 'number' ? version.version : version.kind === 'label' ? version.label : version.kind}`);
  }
  if (!canAccessWorkspace(principal, loaded.workspaceId)) throw promptNotFound(address.prompt);
  const messages = renderPrompt(loaded.template, input.variables, loaded.partials);
  return { prompt: loaded, request: buildChatRequest(loaded, messages, input) };
}
