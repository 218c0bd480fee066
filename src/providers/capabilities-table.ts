/** Renders docs/providers.md from the adapters' declared capabilities (a test keeps the file in step). */
import type { RouteKind } from './contract.ts';
import type { ProviderRegistry } from './registry.ts';

const COLUMNS: ReadonlyArray<[string, RouteKind]> = [
  ['chat', 'chat'],
  ['completions', 'completions'],
  ['embeddings', 'embeddings'],
  ['rerank', 'rerank'],
  ['models', 'models'],
  ['responses', 'responses.create'],
];

interface CustomHostForm {
  form: string;
  /** defaults to the adapter's default base URL */
  example?: string;
}

const AS_GIVEN = 'the base URL with its version, used as given (the default base URL\'s form)';
const ADDS_V1 = 'the origin or a proxy prefix (the gateway adds `/v1`), or a base ending in a version (`/v1`), kept as given';

/** What x-gateway-custom-host must be, per provider: every adapter needs an entry (the table is refused without one). */
const CUSTOM_HOSTS: Readonly<Record<string, CustomHostForm>> = {
  anthropic: { form: AS_GIVEN },
  'azure-ai-inference': {
    form: 'the endpoint as given: a resource\'s `/models` endpoint, or a serverless deployment\'s origin',
    example: 'https://my-resource.services.ai.azure.com/models',
  },
  'azure-openai': { form: 'the endpoint with `/openai`, used as given', example: 'https://my-resource.openai.azure.com/openai' },
  bedrock: { form: 'the runtime origin, used as given (rerank goes to the same host)', example: 'https://bedrock-runtime.us-east-1.amazonaws.com' },
  cerebras: { form: AS_GIVEN },
  cohere: { form: 'the origin (or a proxy prefix); a trailing version (`/v1`, `/v2`) is dropped, as each route names its own' },
  deepinfra: { form: AS_GIVEN },
  deepseek: { form: AS_GIVEN },
  'fireworks-ai': { form: AS_GIVEN },
  google: {
    form: 'the origin or a proxy prefix (the gateway adds `/v1beta`), or a base ending in a version (`/v1beta`, `/v1`), kept as given',
    example: 'https://generativelanguage.googleapis.com',
  },
  groq: { form: AS_GIVEN },
  jina: { form: AS_GIVEN },
  'lm-studio': { form: ADDS_V1, example: 'http://localhost:1234' },
  'mistral-ai': { form: AS_GIVEN },
  ollama: { form: ADDS_V1, example: 'http://localhost:11434' },
  openai: { form: AS_GIVEN },
  openrouter: { form: AS_GIVEN },
  'perplexity-ai': { form: 'the base URL, used as given (Perplexity\'s has no version segment)' },
  pinecone: { form: 'the origin, used as given (the version travels in a header)' },
  'together-ai': { form: AS_GIVEN },
  'vertex-ai': {
    form: 'the origin or a proxy prefix (the gateway adds `/v1`), or a service root ending in a version (`/v1`, `/v1beta1`), kept as given; project and region still come from the `x-gateway-vertex-*` headers',
    example: 'https://us-central1-aiplatform.googleapis.com',
  },
  vllm: { form: ADDS_V1, example: 'http://localhost:8000' },
  voyage: { form: AS_GIVEN },
  'x-ai': { form: AS_GIVEN },
};

function customHostRow(name: string, defaultBaseUrl: string | undefined): string {
  const entry = CUSTOM_HOSTS[name];
  const example = entry?.example ?? defaultBaseUrl;
  if (!entry || !example) throw new Error(`capabilities-table: no custom host form (with an example) for provider "${name}"`);
  return `| ${name} | ${entry.form} | ${example} |`;
}

export function renderProvidersMarkdown(registry: ProviderRegistry): string {
  const yes = (value: boolean) => (value ? 'yes' : '');
  const lines = [
    '# Providers',
    '',
    'Generated from the adapters\' declared capabilities (`src/providers/capabilities-table.ts`); a test fails when',
    'this file and the adapters disagree. Every provider also serves the pass-through routes (`/v1/{path}`,',
    '`/v1/proxy/{path}`). "custom host" means the provider has no public endpoint: send its base URL in',
    '`x-gateway-custom-host`; "from its cloud headers" means the URL is built from the `x-gateway-azure-*`,',
    '`x-gateway-vertex-*` or `x-gateway-aws-*` headers (a custom host still wins). What a custom host must look like',
    'per provider: [Custom hosts](#custom-hosts).',
    '',
    'The `responses` column says which providers speak the Responses API natively (their requests pass through). Every',
    'provider with `chat` also serves `/v1/responses` (run over its chat API, with the conversation kept by the gateway)',
    'and `/v1/messages` (the Anthropic Messages API, translated; native for Anthropic, and for Claude models on Vertex AI',
    '(rawPredict) and Bedrock (InvokeModel), thinking signatures and `cache_control` untouched).',
    '',
    `| provider | default base URL | ${COLUMNS.map(([title]) => title).join(' | ')} | streaming | tools | stream framing |`,
    `|---|---|${COLUMNS.map(() => '---|').join('')}---|---|---|`,
  ];
  const adapters = [...registry.values()].sort((a, b) => a.name.localeCompare(b.name));
  for (const adapter of adapters) {
    const { capabilities } = adapter;
    const routes = COLUMNS.map(([, route]) => yes(capabilities.routes.has(route)));
    lines.push(
      `| ${adapter.name} | ${adapter.defaultBaseUrl ?? (adapter.baseUrlFor ? 'from its cloud headers' : 'custom host')} | ${routes.join(' | ')} | ${yes(capabilities.streaming)} | ${yes(capabilities.tools)} | ${capabilities.framing} |`,
    );
  }
  lines.push(
    '',
    '## Custom hosts',
    '',
    '`x-gateway-custom-host` replaces the base URL above (after the SSRF check). Where the gateway adds a version, the',
    'rule is: a custom host whose last path segment is an API version (`v` and digits, optionally `alpha` or `beta` and',
    'digits: `v1`, `v2`, `v1beta`, `v1beta1`) is kept as given; any other (the bare origin, or a proxy prefix such as',
    '`https://proxy.example/google`) gets the provider\'s version appended. "Used as given" means the gateway appends',
    'only its route paths (`/chat/completions`, `/messages` ...): such a custom host must carry the version itself.',
    '',
    '| provider | custom host | example |',
    '|---|---|---|',
    ...adapters.map((adapter) => customHostRow(adapter.name, adapter.defaultBaseUrl)),
  );
  return `${lines.join('\n')}\n`;
}
