import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { buildOpenApiDocument } from '../src/http/routes/openapi.ts';
import { parseConfig } from '../src/routing/config-schema.ts';

test('the OpenAPI document publishes the routing config schema, and that schema accepts what the gateway accepts', () => {
  const document = JSON.parse(JSON.stringify(buildOpenApiDocument())) as { paths: Record<string, unknown>; components: { schemas: Record<string, object> } };
  assert.ok(document.paths['/chat/completions']);
  const configSchema = document.components.schemas.GatewayConfig!;
  const validate = new Ajv({ strict: false }).compile(configSchema);
  const config = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'sk' }, { strategy: { mode: 'loadbalance' }, targets: [{ provider: 'groq', weight: 1 }] }] };
  assert.equal(validate(config), true, JSON.stringify(validate.errors));
  assert.equal(parseConfig(JSON.stringify(config)).kind, 'inline');
  assert.equal(validate({ strategy: { mode: 'sideways' }, targets: [] }), false);
});
