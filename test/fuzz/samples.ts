/**
 * The operations the fuzz test drives, read from the gateway's own OpenAPI document, with a plausible body for
 * each (built from its schema) for the mutators to break. A route registered later is documented (the OpenAPI
 * test insists), so it is fuzzed without touching this file.
 */

type Schema = Record<string, unknown>;

export interface Operation {
  method: string;
  /** the path as sent, `{name}` placeholders still in it, with the server prefix (`/v1/...` or `/health`) */
  template: string;
  pathParams: string[];
  queryParams: string[];
  /** a body close to valid, built from the request schema; undefined when the operation takes none */
  sample: Record<string, unknown> | undefined;
  inference: boolean;
}

const INFERENCE = /^\/v1\/(chat\/completions|completions|embeddings|rerank|models|responses)(\/|$)/;

function resolve(schema: unknown, components: Record<string, Schema>, depth = 0): Schema {
  if (typeof schema !== 'object' || schema === null || depth > 20) return {};
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') return resolve(components[ref.split('/').at(-1)!], components, depth + 1);
  return schema as Schema;
}

/** A value of the schema's shape: required fields only, the first of any union, minimums where stated. */
export function sampleOf(schemaIn: unknown, components: Record<string, Schema>, depth = 0): unknown {
  const schema = resolve(schemaIn, components);
  if (depth > 6) return null;
  const union = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(union) && union.length > 0) return sampleOf(union[0], components, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      const value: Record<string, unknown> = {};
      for (const name of required) value[name] = sampleOf(properties[name], components, depth + 1);
      return value;
    }
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: Math.min(min, 2) }, () => sampleOf(schema.items, components, depth + 1));
    }
    case 'string':
      return 'fuzz';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    default:
      return 'fuzz';
  }
}

/** Known-good bodies of the inference routes: their schemas are unions a sampler cannot satisfy. */
const INFERENCE_SAMPLES: Record<string, Record<string, unknown>> = {
  '/v1/chat/completions': { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5, temperature: 0.5 },
  '/v1/completions': { model: 'gpt-3.5-turbo-instruct', prompt: 'hi', max_tokens: 5 },
  '/v1/embeddings': { model: 'text-embedding-3-small', input: 'hi' },
  '/v1/rerank': { model: 'rerank-1', query: 'q', documents: ['a', 'b'], top_n: 1 },
  '/v1/responses': { model: 'gpt-4o-mini', input: 'hi' },
};

export function operationsOf(document: Record<string, unknown>): Operation[] {
  const components = ((document.components as Record<string, unknown> | undefined)?.schemas ?? {}) as Record<string, Schema>;
  const rootServer = ((document.servers as Array<{ url: string }> | undefined)?.[0]?.url ?? '').replace(/\/$/, '');
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    const server = ((item.servers as Array<{ url: string }> | undefined)?.[0]?.url ?? rootServer).replace(/\/$/, '');
    for (const [method, value] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const operation = value as { parameters?: Array<{ name: string; in: string }>; requestBody?: { content?: Record<string, { schema?: unknown }> } };
      const parameters = [...((item.parameters as Array<{ name: string; in: string }> | undefined) ?? []), ...(operation.parameters ?? [])];
      const template = `${server}${path}`;
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      const sampled = bodySchema === undefined ? undefined : sampleOf(bodySchema, components);
      operations.push({
        method: method.toUpperCase(),
        template,
        pathParams: parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
        queryParams: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        sample: INFERENCE_SAMPLES[template] ?? (typeof sampled === 'object' && sampled !== null && !Array.isArray(sampled) ? (sampled as Record<string, unknown>) : bodySchema ? {} : undefined),
        inference: INFERENCE.test(template),
      });
    }
  }
  return operations;
}
