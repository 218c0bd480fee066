/** The built-in OpenAI-compatible inference routes: validate once, then forward. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../core/errors.ts';
import type { RoutedBody } from '../../core/inference-call.ts';
import { hasProviderSignal } from '../../pipeline/resolve-target.ts';
import { pageOfItems } from '../../responses/conversation.ts';
import type { ResponsesRuntime } from '../../responses/runtime.ts';
import { validateResponsesRequest } from '../../responses/validate.ts';
import { forward, gatewayHeadersOf, type ForwardDeps } from '../forward.ts';
import { checkPathSegment } from '../input-rules.ts';
import {
  parseInputItemsQuery,
  validateChatCompletion,
  validateCompletion,
  validateEmbedding,
  validateRerank,
} from '../schemas/validate.ts';

type ValidatedRoute = 'chat' | 'completions' | 'embeddings' | 'rerank';
type BodyOf<R extends ValidatedRoute> = Extract<RoutedBody, { route: R }>['body'];

/** A validated POST: the typed body the validator returns is the body the pipeline carries. */
function validatedPost<R extends ValidatedRoute>(app: FastifyInstance, deps: ForwardDeps, url: string, route: R, validate: (body: unknown) => BodyOf<R>): void {
  app.post(url, { config: { routeKind: route } }, async (request, reply) => {
    // TypeScript cannot tie a generic route to its union member; the validator's type does it
    const routed = { route, body: validate(request.body) } as Extract<RoutedBody, { route: R }>;
    await forward(request, reply, routed, deps);
  });
}

export function registerInferenceRoutes(app: FastifyInstance, deps: ForwardDeps, responses: ResponsesRuntime): void {
  validatedPost(app, deps, '/v1/chat/completions', 'chat', validateChatCompletion);
  validatedPost(app, deps, '/v1/completions', 'completions', validateCompletion);
  validatedPost(app, deps, '/v1/embeddings', 'embeddings', validateEmbedding);
  validatedPost(app, deps, '/v1/rerank', 'rerank', validateRerank);

  registerResponsesRoutes(app, deps, responses);
}

/**
 * The Responses API: a provider that speaks it natively gets the request as sent; any other runs it over its chat
 * API (src/responses/). Responses the gateway produced are kept in its store (key-value, per organisation): a
 * `previous_response_id` naming one continues its conversation whatever the target, and GET, DELETE and
 * input_items answer from the store; an id the store does not hold goes to the provider.
 */
function registerResponsesRoutes(app: FastifyInstance, routeDeps: ForwardDeps, responses: ResponsesRuntime): void {
  // the cache keeps Responses here, never chat answers; a hit is a fresh Response (src/responses/cache.ts)
  const deps: ForwardDeps = { ...routeDeps, cacheForm: responses.cacheForm, serveCached: responses.serveCached };
  app.post('/v1/responses', { config: { routeKind: 'responses.create' } }, async (request, reply) => {
    const body = validateResponsesRequest(request.body);
    const organisationId = request.principal?.organisationId;
    const continued = organisationId === undefined ? undefined : await responses.continued(organisationId, body);
    // the provider gets the conversation, not an id it never issued
    if (continued) request.rawBody = Buffer.from(JSON.stringify(continued));
    await forward(request, reply, { route: 'responses.create', body: continued ?? body }, deps);
  });
  /** the stored response of this id, else undefined when a provider is named (it is asked), else a 404 */
  const stored = async (request: FastifyRequest, reply: FastifyReply) => {
    // the id becomes a segment of the provider's path: `..` or `%2e%2e` would climb out of it
    checkPathSegment(request.params, 'response_id');
    const id = (request.params as { response_id: string }).response_id;
    const organisationId = request.principal?.organisationId;
    const found = organisationId === undefined ? undefined : await responses.store.get(organisationId, id);
    if (found || hasProviderSignal(gatewayHeadersOf(request, reply, deps))) return found;
    throw notFound(`Response with id '${id}' not found.`);
  };
  app.get('/v1/responses/:response_id', { config: { routeKind: 'responses.get' } }, async (request, reply) => {
    const found = await stored(request, reply);
    if (found) return reply.send(found.response);
    await forward(request, reply, { route: 'responses.get', body: undefined }, deps);
  });
  app.delete('/v1/responses/:response_id', { config: { routeKind: 'responses.delete' } }, async (request, reply) => {
    const found = await stored(request, reply);
    if (found) {
      await responses.store.delete(request.principal!.organisationId, found.response.id);
      // the reference answers a deletion with 200 and no body
      return reply.code(200).send();
    }
    await forward(request, reply, { route: 'responses.delete', body: request.body }, deps);
  });
  app.get('/v1/responses/:response_id/input_items', { config: { routeKind: 'responses.input_items' } }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const parsed = parseInputItemsQuery(query);
    const found = await stored(request, reply);
    // OpenAI lists input items newest first unless asked otherwise
    if (found) return reply.send(pageOfItems(found.input_items, { ...parsed, order: query.order === undefined ? 'desc' : parsed.order }));
    await forward(request, reply, { route: 'responses.input_items', body: undefined }, deps);
  });
}
