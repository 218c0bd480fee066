// Writes docs/providers.md from the adapters: node --import tsx scripts/providers-doc.ts
import { writeFileSync } from 'node:fs';
import { renderProvidersMarkdown } from '../src/providers/capabilities-table.ts';
import { createProviderRegistry } from '../src/providers/registry.ts';

writeFileSync(new URL('../docs/providers.md', import.meta.url), renderProvidersMarkdown(createProviderRegistry()));
