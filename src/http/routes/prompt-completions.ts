/**
 * Prompt execution on the data plane (api-surface §2.6), `promptId` being the prompt's id or slug, optionally
 * `@latest`, `@<version>` or `@<label>` (src/domain/prompts/address.ts):
 * - POST /v1/prompts/{promptId}/render: the filled-in chat request, not sent (`{success, data}`); scope
 *   `prompts.render`.
 * - POST /v1/prompts/{promptId}/completions: the same request sent through the chat completions pipeline
 *   (configs, routing, retries, cache, guardrails, limits, the log), answering exactly as POST /v1/chat/completions
 *   does: the bare completion, or its event stream. Scope `completions.write`. The provider is the prompt's
 *   `virtual_key` unless the request's x-gateway-* headers name one; the log row and the metadata (`_prompt`)
 *   name the prompt and version.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireScope } from '../../auth/authorize.ts';
import type { GatewayHeaders } from '../../core/context.ts';
import { GatewayError, invalidParam, unauthorized } from '../../core/errors.ts';
import type { ChatRequest } from '../../core/openai-types.ts';
import { parsePromptAddress } from '../../domain/prompts/address.ts';
import type { RunPromptInput } from '../../domain/prompts/inputs.ts';
import type { RunnablePrompt } from '../../domain/prompts/load-prompt.ts';
import { preparePromptRun } from '../../domain/prompts/run-prompt.ts';
import { createSavedPrompts, type SavedPrompts } from '../../domain/prompts/saved-prompts.ts';
import type { KvStore } from '../../kv/store.ts';
import type { Db } from '../../storage/database.ts';
import { hasProviderSignal } from '../../pipeline/resolve-target.ts';
import { validateRunPrompt } from '../admin/prompts/schemas.ts';
import { forward, gatewayHeadersOf, type ForwardDeps } from '../forward.ts';
import { validateChatCompletion } from '../schemas/validate.ts';

interface PromptRouteDeps extends ForwardDeps {
  prompts: SavedPrompts;
}

async function prepare(request: FastifyRequest, deps: PromptRouteDeps, scope: string) {
  const principal = request.principal;
  if (!principal) throw unauthorized('Missing x-gateway-api-key header.', 'missing_api_key');
  requireScope(principal, scope);
  const address = parsePromptAddress((request.params as Record<string, unknown>).promptId);
  const input = validateRunPrompt(request.body);
  return { input, run: await preparePromptRun(deps.prompts, principal, address, input) };
}

/** The chat request checked like a client's; a field that came from the request's overrides is named as such. */
function checkedChat(body: Record<string, unknown>, input: RunPromptInput): ChatRequest {
  try {
    return validateChatCompletion(body);
  } catch (error) {
    const field = error instanceof GatewayError ? error.param?.split(/[.[]/)[0] : undefined;
    if (error instanceof GatewayError && field !== undefined && input.hyperparameters && Object.hasOwn(input.hyperparameters, field)) {
      throw invalidParam(`hyperparameters.${error.param}`, error.message, error.code ?? undefined);
    }
    throw error;
  }
}

/** The prompt's provider when the request names none, and `_prompt` in the metadata (the request's own wins not). */
function promptHeaders(headers: GatewayHeaders, prompt: RunnablePrompt): GatewayHeaders {
  const metadata = { ...headers.metadata, _prompt: prompt.slug };
  const provider = prompt.virtualKey;
  if (provider === null || hasProviderSignal(headers)) return { ...headers, metadata };
  if (provider.startsWith('@')) return { ...headers, metadata, providerSlug: provider.slice(1), savedProviderParam: 'virtual_key' };
  return { ...headers, metadata, virtualKey: provider, savedProviderParam: 'virtual_key' };
}

/** Registers both routes, with this node's cache of prompt versions (closed with the app). */
export async function registerPromptCompletionRoutes(app: FastifyInstance, forwardDeps: ForwardDeps, storage: { db: Db; kv: KvStore }): Promise<void> {
  const prompts = await createSavedPrompts(storage.db, storage.kv);
  app.addHook('onClose', () => prompts.close());
  const deps: PromptRouteDeps = { ...forwardDeps, prompts };
  app.post('/v1/prompts/:promptId/render', async (request) => {
    const { run } = await prepare(request, deps, 'prompts.render');
    return { success: true, data: run.request };
  });

  app.post('/v1/prompts/:promptId/completions', { config: { routeKind: 'chat' } }, async (request, reply) => {
    const { input, run } = await prepare(request, deps, 'completions.write');
    const body = checkedChat(run.request, input);
    // the provider gets the rendered request, not the prompt call's body (and the log shows what was sent)
    request.rawBody = Buffer.from(JSON.stringify(body));
    request.gateway = promptHeaders(gatewayHeadersOf(request, reply, deps), run.prompt);
    if (request.logRecord) request.logRecord.prompt = { id: run.prompt.id, slug: run.prompt.slug, versionId: run.prompt.version.id };
    await forward(request, reply, { route: 'chat', body }, deps);
  });
}
