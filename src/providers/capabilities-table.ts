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

export function renderProvidersMarkdown(registry: ProviderRegistry): string {
  const yes = (value: boolean) => (value ? 'yes' : '');
  const lines = [
    '# Providers',
    '',
    'Generated from the adapters\' declared capabilities (`src/providers/capabilities-table.ts`); a test fails when',
    'this file and the adapters disagree. Every provider also serves the pass-through routes (`/v1/{path}`,',
    '`/v1/proxy/{path}`). "custom host" means the provider has no public endpoint: send its base URL in',
    '`x-gateway-custom-host`; "from its cloud headers" means the URL is built from the `x-gateway-azure-*`,',
    '`x-gateway-vertex-*` or `x-gateway-aws-*` headers (a custom host still wins).',
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
  return `${lines.join('\n')}\n`;
}
