/**
 * The OpenAPI document: it covers every route the app registers and nothing else, it is OpenAPI 3.1 in shape,
 * and it is served, without a key, at /openapi.json and /v1/openapi.json.
 *
 * The registered routes are collected with an `onRoute` hook added through Fastify's `fastify.initialization`
 * diagnostics channel, which fires when the instance is created and before any route is registered; printRoutes()
 * cannot serve here, as it drops the prefix of wildcard routes (`/v1/*` and `/v1/proxy/*` both print as `*`).
 */
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { after, before, test } from 'node:test';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { parseConfig } from '../src/routing/config-schema.ts';
import { startTestGateway, type TestGateway } from './helpers/gateway.ts';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Parameter { name: string; in: string; required?: boolean; $ref?: string }
interface Operation { operationId?: string; parameters?: Parameter[]; responses?: Record<string, { description?: string }>; security?: unknown[] }
type PathItem = Partial<Record<(typeof HTTP_METHODS)[number], Operation>> & {
  servers?: Array<{ url: string }>;
  parameters?: Parameter[];
  'x-gateway-wildcard-parameter'?: string;
};
interface Document {
  openapi: string;
  info: { title: string; version: string };
  servers: Array<{ url: string }>;
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, object>; securitySchemes?: Record<string, object> };
  security?: unknown[];
}

let gateway: TestGateway;
const registered = new Set<string>();
let servedBody = '';
let document: Document;

before(async () => {
  const collect = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (options: RouteOptions) => {
      for (const method of [options.method].flat()) registered.add(`${method} ${options.url}`);
    });
  };
  diagnostics.subscribe('fastify.initialization', collect);
  try {
    gateway = await startTestGateway();
  } finally {
    diagnostics.unsubscribe('fastify.initialization', collect);
  }
  const response = await gateway.gateway.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(response.statusCode, 200, response.body);
  servedBody = response.body;
  document = JSON.parse(servedBody) as Document;
});

after(async () => {
  await gateway?.close();
});

/** `{name}` -> `:name`, and the path item's wildcard parameter -> `*`, under each server the path is served from. */
function documentedRoutes(doc: Document): Set<string> {
  const routes = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    const wildcard = item['x-gateway-wildcard-parameter'];
    const template = path.replace(/\{([^}]+)\}/g, (_whole, name: string) => (name === wildcard ? '*' : `:${name}`));
    for (const server of item.servers ?? doc.servers) {
      const url = server.url.replace(/\/$/, '') + template;
      for (const method of HTTP_METHODS) if (item[method]) routes.add(`${method.toUpperCase()} ${url}`);
    }
  }
  return routes;
}

/** Fastify answers HEAD for every GET route by itself (exposeHeadRoutes): a GET's operation documents both. */
function withoutImpliedHead(routes: Set<string>): Set<string> {
  return new Set([...routes].filter((route) => !(route.startsWith('HEAD ') && routes.has(`GET ${route.slice(5)}`))));
}

test('every registered route is in the document, and every documented route is registered', () => {
  const routes = withoutImpliedHead(registered);
  assert.ok(routes.size > 50, `only ${routes.size} routes were collected`);
  const documented = documentedRoutes(document);
  const undocumented = [...routes].filter((route) => !documented.has(route)).sort();
  const unregistered = [...documented].filter((route) => !routes.has(route)).sort();
  assert.deepEqual(undocumented, [], 'registered but not documented');
  assert.deepEqual(unregistered, [], 'documented but not registered');
  // the same, asked of the router itself
  for (const route of documented) {
    const [method, url] = route.split(' ') as [string, string];
    assert.ok(gateway.gateway.app.hasRoute({ method: method as 'GET', url }), `${route} is documented but the router has no such route`);
  }
});

test('the operations routes are documented under the root server, everything else under /v1', () => {
  for (const path of ['/health', '/ready', '/metrics']) {
    assert.deepEqual(document.paths[path]?.servers?.map((server) => server.url), ['/'], path);
    assert.deepEqual(document.paths[path]?.get?.security, [], `${path} needs no key`);
  }
  assert.deepEqual(document.servers.map((server) => server.url), ['/v1']);
  assert.deepEqual(document.paths['/openapi.json']?.servers?.map((server) => server.url).sort(), ['/', '/v1']);
  assert.deepEqual(document.paths['/admin/users/invites/accept']?.post?.security, [], 'the invitee has no key yet');
});

/** Every `$ref` in the document, with where it was found. */
function references(value: unknown, at: string, found: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(value)) value.forEach((entry, index) => references(entry, `${at}/${index}`, found));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, entry] of Object.entries(value)) {
      if (key === '$ref' && typeof entry === 'string') found.push([at, entry]);
      else references(entry, `${at}/${key}`, found);
    }
  }
  return found;
}

function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const token of pointer.slice(2).split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    if (typeof node !== 'object' || node === null || !(token in node)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

test('the document is OpenAPI 3.1 in shape: every $ref resolves, every path parameter is declared, ids are unique', () => {
  assert.equal(document.openapi, '3.1.0');
  assert.ok(document.info.title && document.info.version);
  for (const [at, ref] of references(document, '#')) {
    assert.ok(ref.startsWith('#/'), `${at}: $ref ${ref} is not local to the document`);
    assert.notEqual(resolvePointer(document, ref), undefined, `${at}: $ref ${ref} does not resolve`);
  }
  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    assert.match(path, /^\//);
    const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!).sort();
    let operations = 0;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operations += 1;
      const where = `${method.toUpperCase()} ${path}`;
      assert.ok(operation.operationId, `${where} has no operationId`);
      assert.ok(!operationIds.has(operation.operationId), `${where}: operationId ${operation.operationId} is used twice`);
      operationIds.add(operation.operationId);
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((parameter) =>
        parameter.$ref ? (resolvePointer(document, parameter.$ref) as Parameter) : parameter,
      );
      const declared = parameters.filter((parameter) => parameter.in === 'path');
      assert.deepEqual(declared.map((parameter) => parameter.name).sort(), inTemplate, `${where}: path parameters`);
      for (const parameter of declared) assert.equal(parameter.required, true, `${where}: path parameter ${parameter.name} must be required`);
      const keys = parameters.map((parameter) => `${parameter.in}:${parameter.name}`);
      assert.equal(new Set(keys).size, keys.length, `${where}: a parameter is declared twice`);
      const responses = Object.entries(operation.responses ?? {}).map(([status, response]) => {
        const shared = (response as { $ref?: string }).$ref;
        return [status, shared ? (resolvePointer(document, shared) as { description?: string }) : response] as const;
      });
      assert.ok(responses.length > 0, `${where} has no responses`);
      for (const [status, response] of responses) {
        assert.match(status, /^([1-5]\d\d|default)$/, `${where}: response key ${status}`);
        assert.ok(response.description, `${where} ${status} has no description`);
      }
    }
    assert.ok(operations > 0, `${path} has no operation`);
  }
  // every component schema is a JSON Schema (the 2020-12 dialect of OpenAPI 3.1) that compiles
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  ajv.addSchema({ $id: 'https://gateway.invalid/openapi.json', components: document.components });
  for (const name of Object.keys(document.components.schemas)) {
    assert.ok(ajv.getSchema(`https://gateway.invalid/openapi.json#/components/schemas/${name}`), name);
  }
});

test('every admin route that reads a body names its schema, and every error status uses ErrorResponse', () => {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['post', 'put', 'patch'] as const) {
      const operation = item[method] as (Operation & { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } }) | undefined;
      if (!operation) continue;
      // refusals (405 only) read no body; the pass-through and the Responses API forward it untouched
      const refusal = operation.responses?.['405'] !== undefined && operation.responses['200'] === undefined;
      const passThrough = item['x-gateway-wildcard-parameter'] !== undefined;
      if (refusal || passThrough || path.endsWith('/resend') || path === '/responses') continue;
      // a multipart upload (POST /files) names its schema under its own media type
      const ref = (operation.requestBody?.content?.['application/json'] ?? operation.requestBody?.content?.['multipart/form-data'])?.schema?.$ref;
      assert.ok(ref?.startsWith('#/components/schemas/'), `${method.toUpperCase()} ${path} has no request body schema`);
    }
    for (const method of HTTP_METHODS) {
      for (const [status, declared] of Object.entries(item[method]?.responses ?? {})) {
        // a guardrail's 446 carries its verdicts, and /ready's 503 the readiness body
        if (!/^[45]/.test(status) || status === '446' || (path === '/ready' && status === '503')) continue;
        const shared = (declared as { $ref?: string }).$ref;
        const response = shared ? resolvePointer(document, shared) : declared;
        const ref = (response as { content?: Record<string, { schema?: { $ref?: string } }> }).content?.['application/json']?.schema?.$ref;
        assert.equal(ref, '#/components/schemas/ErrorResponse', `${method.toUpperCase()} ${path} ${status}`);
      }
    }
  }
});

test('the body schema written out for PUT /admin/organisation accepts exactly what the route accepts', async () => {
  const ajv = new Ajv({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: 'https://gateway.invalid/openapi.json', components: document.components });
  const check = ajv.getSchema('https://gateway.invalid/openapi.json#/components/schemas/UpdateOrganisationRequest');
  assert.ok(check);
  const bodies = [
    { name: 'Acme' },
    {},
    { settings: {} },
    { settings: { jwt: null } },
    { settings: { jwt: { jwks_url: 'https://issuer.invalid/jwks.json', issuer: 'issuer', audience: 'gateway' } } },
    { settings: { jwt: null }, name: 'Acme again' },
    { name: '' },
    { name: 'x'.repeat(256) },
    { slug: 'acme' },
    { settings: { jwt: { issuer: 'issuer' } } },
    { settings: { jwt: { jwks_url: 'https://issuer.invalid/jwks.json', extra: true } } },
    { settings: { other: 1 } },
  ];
  for (const body of bodies) {
    const response = await gateway.gateway.app.inject({
      method: 'PUT',
      url: '/v1/admin/organisation',
      headers: { 'x-gateway-api-key': gateway.adminKey },
      payload: body,
    });
    assert.ok(response.statusCode === 200 || response.statusCode === 400, `${JSON.stringify(body)}: ${response.statusCode} ${response.body}`);
    assert.equal(check(body), response.statusCode === 200, `the schema and the route disagree on ${JSON.stringify(body)}: ${response.body}`);
  }
  // leave no JWT settings behind for the other tests of this file
  await gateway.gateway.app.inject({ method: 'PUT', url: '/v1/admin/organisation', headers: { 'x-gateway-api-key': gateway.adminKey }, payload: { settings: { jwt: null } } });
});

test('the OpenAPI document publishes the routing config schema, and that schema accepts what the gateway accepts', () => {
  const ajv = new Ajv({ strict: false });
  ajv.addSchema({ $id: 'https://gateway.invalid/openapi.json', components: document.components });
  const validate = ajv.getSchema('https://gateway.invalid/openapi.json#/components/schemas/GatewayConfig')!;
  const config = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'sk' }, { strategy: { mode: 'loadbalance' }, targets: [{ provider: 'groq', weight: 1 }] }] };
  assert.equal(validate(config), true, JSON.stringify(validate.errors));
  assert.equal(parseConfig(JSON.stringify(config)).kind, 'inline');
  assert.equal(validate({ strategy: { mode: 'sideways' }, targets: [] }), false);
  // a nested target is checked by the same schema (the recursion is a reference inside the document)
  assert.equal(validate({ targets: [{ targets: [{ provider: 'openai', sideways: true }] }] }), false);
});

/** JSON pointer escaping of one token (`/` and `~`). */
const token = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

test('real answers match the documented 200 schemas', async () => {
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ ...document, $id: 'https://gateway.invalid/openapi.json' });
  const app = gateway.gateway.app;
  const call = async (method: 'GET' | 'POST' | 'PUT', template: string, url: string, payload?: object, key: string | undefined = gateway.adminKey) => {
    const response = await app.inject({ method, url, headers: key ? { 'x-gateway-api-key': key } : {}, ...(payload ? { payload } : {}) });
    assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    const operation = document.paths[template]?.[method.toLowerCase() as 'get'];
    assert.ok(operation, `${method} ${template} is not documented`);
    const pointer = ['paths', template, method.toLowerCase(), 'responses', '200', 'content', 'application/json', 'schema'].map(token).join('/');
    const validate = ajv.getSchema(`https://gateway.invalid/openapi.json#/${pointer}`);
    assert.ok(validate, `${method} ${template} documents no JSON answer`);
    const body: unknown = response.json();
    assert.ok(validate(body), `${method} ${url}: ${ajv.errorsText(validate.errors)}\n${response.body}`);
    return body as Record<string, unknown> & { data: Array<Record<string, string>> };
  };

  await call('GET', '/health', '/health', undefined, undefined);
  await call('GET', '/ready', '/ready', undefined, undefined);
  await call('GET', '/models', '/v1/models');
  await call('GET', '/admin/organisation', '/v1/admin/organisation');
  const workspaces = await call('GET', '/admin/workspaces', '/v1/admin/workspaces');
  const workspaceId = workspaces.data[0]!.id!;
  await call('GET', '/admin/workspaces/{workspaceId}', `/v1/admin/workspaces/${workspaceId}`);
  await call('GET', '/admin/workspaces/{workspaceId}/users', `/v1/admin/workspaces/${workspaceId}/users`);

  const key = await call('POST', '/api-keys/{type}/{subType}', '/v1/api-keys/workspace/service', { name: 'docs', workspace_id: workspaceId, scopes: ['completions.write'] });
  await call('GET', '/api-keys', '/v1/api-keys');
  await call('GET', '/api-keys/{id}', `/v1/api-keys/${String(key.id)}`);
  await call('PUT', '/api-keys/{id}', `/v1/api-keys/${String(key.id)}`, { description: 'documented' });
  await call('POST', '/api-keys/{id}/rotate', `/v1/api-keys/${String(key.id)}/rotate`, {});

  const config = await call('POST', '/configs', '/v1/configs', { name: 'docs', config: { provider: 'openai' } });
  const slug = String((config.data as unknown as { slug: string }).slug);
  await call('GET', '/configs', '/v1/configs');
  await call('GET', '/configs/{slug}', `/v1/configs/${slug}`);
  await call('PUT', '/configs/{slug}', `/v1/configs/${slug}`, { name: 'docs, renamed' });
  await call('GET', '/configs/{slug}/versions', `/v1/configs/${slug}/versions`);

  const guardrail = await call('POST', '/guardrails', '/v1/guardrails', {
    name: 'docs',
    checks: [{ id: 'gateway.pii', parameters: { categories: ['EMAIL_ADDRESS'], redact: true } }],
    actions: {},
  });
  await call('GET', '/guardrails', '/v1/guardrails');
  await call('GET', '/guardrails/{guardrailId}', `/v1/guardrails/${String(guardrail.id)}`);

  const invite = await call('POST', '/admin/users/invites', '/v1/admin/users/invites', { email: 'docs@example.com', role: 'member', workspaces: [{ id: workspaceId, role: 'member' }], workspace_api_key_details: { scopes: ['completions.write'] } });
  await call('GET', '/admin/users/invites', '/v1/admin/users/invites');
  await call('GET', '/admin/users/invites/{inviteId}', `/v1/admin/users/invites/${String(invite.id)}`);
  const resent = await call('POST', '/admin/users/invites/{inviteId}/resend', `/v1/admin/users/invites/${String(invite.id)}/resend`);
  const inviteToken = new URL(String(resent.inviteLink)).searchParams.get('token')!;
  const user = await call('POST', '/admin/users/invites/accept', '/v1/admin/users/invites/accept', { token: inviteToken, first_name: 'Ada' }, undefined);
  await call('GET', '/admin/users', '/v1/admin/users');
  await call('GET', '/admin/users/{userId}', `/v1/admin/users/${String(user.id)}`);
  await call('GET', '/admin/workspaces/{workspaceId}/users/{userId}', `/v1/admin/workspaces/${workspaceId}/users/${String(user.id)}`);
  await call('GET', '/audit-logs', '/v1/audit-logs');
});

test('/openapi.json and /v1/openapi.json serve the same document, with no key', async () => {
  const app = gateway.gateway.app;
  const root = await app.inject({ method: 'GET', url: '/openapi.json' });
  const v1 = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
  assert.equal(root.statusCode, 200, root.body);
  assert.equal(v1.statusCode, 200, v1.body);
  assert.match(String(v1.headers['content-type']), /^application\/json/);
  assert.equal(v1.body, root.body);
  assert.equal(root.body, servedBody);
  // the public path is exactly that one: its neighbours under /v1 still need a key
  const neighbour = await app.inject({ method: 'GET', url: '/v1/openapi.yaml' });
  assert.equal(neighbour.statusCode, 401, neighbour.body);
});
