/**
 * Prompt execution end to end, on every back-end: POST /v1/prompts/{promptId}/render and /completions through
 * the official openai client against a real gateway and a fake OpenAI upstream on 127.0.0.1. The rendered request
 * (partials, variables, saved parameters, overrides) is what reaches the provider named by the prompt's
 * virtual_key; the answer is the bare completion or its event stream; versions are chosen by number, label,
 * latest and makeDefault; the log row names the prompt; scopes and workspaces are enforced.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { findRequestLogsByTraceId } from '../../src/storage/repositories/request-logs.ts';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { promptLabels, promptPartials, promptPartialVersions } from '../../src/storage/schema.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';
import { insertIntegration } from '../helpers/provider-records.ts';

const STORED_KEY = 'sk-stored-prompt-key-000111';
const cipher = createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));
const TEMPLATE = JSON.stringify([
  { role: 'system', content: '{{> tone}}' },
  { role: 'user', content: 'Question from {{customer.name}}: {{question}}' },
]);

interface ChatAnswer {
  object: string;
  model: string;
  choices: Array<{ message: { content: string } }>;
}

for (const backend of testBackends()) {
  describe(`prompt completions on ${backend.name}`, () => {
    let upstream: FakeUpstream;
    let gateway: TestGateway;
    let drop: () => Promise<void> = async () => {};
    let call: ReturnType<typeof adminClient>;
    let prompt: { id: string; slug: string; version_id: string };
    let keys: Record<'noCompletions' | 'noRender' | 'otherWorkspace', string>;
    const db = () => gateway.gateway.database.db;
    const variables = { customer: { name: 'Ada' }, question: 'Where is "my" parcel?' };

    function client(key = gateway.adminKey, headers: Record<string, string> = {}): OpenAI {
      return new OpenAI({ apiKey: 'unused', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': key, Authorization: null, ...headers } });
    }
    const complete = (address: string, body: Record<string, unknown>, key?: string, headers?: Record<string, string>) =>
      client(key, headers).post<ChatAnswer>(`/prompts/${address}/completions`, { body });
    const render = (address: string, body: Record<string, unknown>, key = gateway.adminKey) => call('POST', `/prompts/${address}/render`, key, body);
    const lastUpstream = () => upstream.requests.at(-1)!.json as Record<string, unknown>;

    async function rejected(promise: Promise<unknown>, status: number, param: string | null) {
      const since = upstream.requests.length;
      await assert.rejects(promise, (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError, String(error));
        assert.equal(error.status, status, JSON.stringify(error.error));
        assert.equal((error.error as { param?: string | null }).param ?? null, param, JSON.stringify(error.error));
        return true;
      });
      assert.equal(upstream.requests.length, since, 'no provider was called');
    }

    before(async () => {
      upstream = await startFakeUpstream();
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      const organisationId = gateway.gateway.bootstrap.organisation.id;
      const workspaceId = gateway.gateway.bootstrap.workspace.id;
      const integration = await insertIntegration(db(), cipher, { organisationId, slug: 'prompt-openai', key: STORED_KEY, global: true, configurations: { custom_host: upstream.baseUrl } });
      assert.equal((await call('POST', '/providers', gateway.adminKey, { name: 'Prompts', integration_id: integration.slug, slug: 'prompt-openai' })).status, 200);
      const [partial] = await db().insert(promptPartials).values({ organisationId, workspaceId, slug: 'tone', name: 'Tone', createdBy: 'test' }).returning();
      await db().insert(promptPartialVersions).values({ partialId: partial!.id, version: 1, template: 'You are a {{style}} support agent of {{company}}.', createdBy: 'test' });
      const createdPrompt = await call('POST', '/prompts', gateway.adminKey, {
        name: 'Support', string: TEMPLATE, model: 'echo-v1', virtual_key: '@prompt-openai', parameters: { temperature: 0.3, max_tokens: 50 },
      });
      assert.equal(createdPrompt.status, 200, JSON.stringify(createdPrompt.body));
      prompt = createdPrompt.body;
      const key = async (body: Record<string, unknown>) => {
        const response = await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'k', workspace_id: workspaceId, ...body });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        return response.body.key as string;
      };
      const other = await call('POST', '/admin/workspaces', gateway.adminKey, { name: 'Other', slug: 'other' });
      keys = {
        noCompletions: await key({ scopes: ['prompts.render'] }),
        noRender: await key({ scopes: ['completions.write'] }),
        otherWorkspace: await key({ workspace_id: other.body.id, scopes: ['completions.write', 'prompts.render'] }),
      };
    });

    after(async () => {
      await gateway?.close();
      await upstream?.close();
      await drop();
    });

    const allVariables = { ...variables, style: 'friendly', company: 'Acme' };

    test('render: the filled-in request, partials included, nothing sent', async () => {
      const since = upstream.requests.length;
      const response = await render(prompt.slug, { variables: allVariables, hyperparameters: { max_tokens: 7 } });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.deepEqual(response.body, {
        success: true,
        data: {
          temperature: 0.3,
          max_tokens: 7,
          model: 'echo-v1',
          messages: [
            { role: 'system', content: 'You are a friendly support agent of Acme.' },
            { role: 'user', content: 'Question from Ada: Where is "my" parcel?' },
          ],
        },
      });
      assert.equal(upstream.requests.length, since);
      const missing = await render(prompt.id, { variables: { ...allVariables, style: undefined } });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.param, 'variables.style');
      assert.equal(missing.body.error.code, 'missing_prompt_variable');
    });

    test('completions: the rendered request reaches the prompt\'s provider; the bare completion comes back; the log names the prompt', async () => {
      const traceId = `prompt-trace-${backend.name}`;
      const answer = await complete(prompt.slug, { variables: allVariables, hyperparameters: { max_tokens: 5 } }, undefined, { 'x-gateway-trace-id': traceId, 'x-gateway-metadata': '{"team":"support"}' });
      assert.equal(answer.object, 'chat.completion');
      assert.equal(answer.choices[0]!.message.content, 'You asked: Question from Ada: Where is "my" parcel?');
      const sent = lastUpstream();
      assert.deepEqual(sent, {
        temperature: 0.3,
        max_tokens: 5,
        model: 'echo-v1',
        messages: [
          { role: 'system', content: 'You are a friendly support agent of Acme.' },
          { role: 'user', content: 'Question from Ada: Where is "my" parcel?' },
        ],
      });
      assert.equal(upstream.requests.at(-1)!.headers.authorization, `Bearer ${STORED_KEY}`, 'the provider of the prompt\'s virtual_key, with its stored key');
      await gateway.gateway.requestLog.flush();
      const [row] = await findRequestLogsByTraceId(db(), gateway.gateway.bootstrap.organisation.id, traceId);
      assert.ok(row, 'a log row');
      assert.deepEqual([row.promptId, row.promptSlug, row.promptVersionId, row.status, row.route], [prompt.id, prompt.slug, prompt.version_id, 200, 'chat']);
      assert.deepEqual(row.metadata, { team: 'support', _prompt: prompt.slug });
      assert.equal(row.providerSlug, 'prompt-openai');
      const range = `time_of_generation_min=${new Date(Date.now() - 3_600_000).toISOString()}&time_of_generation_max=${new Date(Date.now() + 60_000).toISOString()}`;
      const graph = (slug: string) => call('GET', `/analytics/graphs/requests?${range}&prompt_slug=${slug}`, gateway.adminKey);
      const seen = await graph(prompt.slug);
      assert.equal(seen.status, 200, JSON.stringify(seen.body));
      assert.equal(seen.body.summary.total, 1, 'the analytics prompt_slug filter sees the request');
      assert.equal((await graph('another-prompt')).body.summary.total, 0);
    });

    test('completions stream: the same server-sent events as chat completions', async () => {
      const stream = await client().post<OpenAI.Chat.Completions.ChatCompletionChunk>(`/prompts/${prompt.slug}/completions`, {
        body: { variables: allVariables, stream: true, max_tokens: 9 },
        stream: true,
      }) as unknown as AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
      let text = '';
      let chunks = 0;
      for await (const chunk of stream) {
        chunks += 1;
        assert.equal(chunk.object, 'chat.completion.chunk');
        text += chunk.choices[0]?.delta.content ?? '';
      }
      assert.ok(chunks >= 3);
      assert.equal(text, 'Hello world');
      const sent = lastUpstream();
      assert.equal(sent.stream, true);
      assert.equal(sent.max_tokens, 9, 'a top-level model parameter overrides the saved one');
    });

    test('versions: by number, @latest, @label, and makeDefault; unknown ones are 404s', async () => {
      const two = await call('PUT', `/prompts/${prompt.id}`, gateway.adminKey, { patch: true, model: 'echo-v2' });
      assert.equal(two.status, 200);
      const model = async (address: string) => {
        await complete(address, { variables: allVariables });
        return lastUpstream().model;
      };
      assert.equal(await model(prompt.slug), 'echo-v1', 'a new version is not the default');
      assert.equal(await model(`${prompt.slug}@latest`), 'echo-v2');
      assert.equal(await model(`${prompt.slug}@1`), 'echo-v1');
      assert.equal(await model(`${prompt.id}@2`), 'echo-v2');
      const [label] = await db().insert(promptLabels).values({ organisationId: gateway.gateway.bootstrap.organisation.id, workspaceId: gateway.gateway.bootstrap.workspace.id, name: 'production', createdBy: 'test' }).returning();
      assert.equal((await call('PUT', `/prompts/${prompt.id}/versions/${two.body.prompt_version_id}`, gateway.adminKey, { label_id: label!.id })).status, 200);
      assert.equal(await model(`${prompt.slug}@production`), 'echo-v2');
      assert.equal((await call('PUT', `/prompts/${prompt.id}/makeDefault`, gateway.adminKey, { version: 2 })).status, 200);
      assert.equal(await model(prompt.slug), 'echo-v2', 'the published version is served at once');
      await rejected(complete(`${prompt.slug}@9`, { variables: allVariables }), 404, null);
      await rejected(complete(`${prompt.slug}@staging`, { variables: allVariables }), 404, null);
      await rejected(complete('no-such-prompt', { variables: allVariables }), 404, null);
      await rejected(complete(`${prompt.slug}@0`, { variables: allVariables }), 400, 'promptId');
      assert.equal((await render(`${prompt.slug}@1`, { variables: allVariables })).body.data.model, 'echo-v1');
      assert.equal((await call('PUT', `/prompts/${prompt.id}/makeDefault`, gateway.adminKey, { version: 1 })).status, 200);
    });

    test('the request\'s own provider headers win over the prompt\'s virtual_key', async () => {
      await complete(prompt.slug, { variables: allVariables }, undefined, { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, Authorization: 'Bearer sk-from-the-client' });
      assert.equal(upstream.requests.at(-1)!.headers.authorization, 'Bearer sk-from-the-client');
    });

    test('bad input is a 400 naming the field, before any provider call', async () => {
      await rejected(complete(prompt.slug, { variables: { ...allVariables, customer: {} } }), 400, 'variables.customer.name');
      await rejected(complete(prompt.slug, { variables: allVariables, hyperparameters: { messages: [] } }), 400, 'hyperparameters.messages');
      await rejected(complete(prompt.slug, { variables: allVariables, hyperparameters: { temperature: 'hot' } }), 400, 'hyperparameters.temperature');
      await rejected(complete(prompt.slug, { variables: 'all' }), 400, 'variables');
      await rejected(complete(prompt.slug, { variables: allVariables, stream: 'yes' }), 400, 'stream');
      await rejected(complete('bad slug!', { variables: allVariables }), 400, 'promptId');
    });

    test('grants and denials: completions.write, prompts.render, and another workspace\'s prompt is a 404', async () => {
      await rejected(complete(prompt.slug, { variables: allVariables }, keys.noCompletions), 403, null);
      assert.equal((await render(prompt.slug, { variables: allVariables }, keys.noCompletions)).status, 200, 'render needs prompts.render only');
      const noRender = await render(prompt.slug, { variables: allVariables }, keys.noRender);
      assert.equal(noRender.status, 403);
      assert.ok(noRender.body.error.message.includes('prompts.render'));
      assert.equal((await complete(prompt.slug, { variables: allVariables }, keys.noRender)).object, 'chat.completion', 'completions needs completions.write only');
      await rejected(complete(prompt.slug, { variables: allVariables }, keys.otherWorkspace), 404, null);
      assert.equal((await render(prompt.id, { variables: allVariables }, keys.otherWorkspace)).status, 404);
      assert.equal((await call('POST', `/prompts/${prompt.slug}/render`, undefined, { variables: allVariables })).status, 401);
    });

    test('a partial moved to a new default version reaches the next render at once (the prompt cache is dropped)', async () => {
      assert.equal((await render(prompt.slug, { variables: allVariables })).body.data.messages[0].content, 'You are a friendly support agent of Acme.');
      const updated = await call('PUT', '/prompts/partials/tone', gateway.adminKey, { string: 'Be {{style}} for {{company}}.' });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal((await call('PUT', '/prompts/partials/tone/makeDefault', gateway.adminKey, { version: 2 })).status, 200);
      const after = await render(prompt.slug, { variables: allVariables });
      assert.equal(after.body.data.messages[0].content, 'Be friendly for Acme.');
    });
  });
}
