/**
 * What both MCP admin groups share, made once per app: the rules a URL is checked by, the connector to upstream
 * MCP servers (its own SSRF-guarded dispatcher, closed with the app), and the secret-mapping resolver, created on
 * first use (most integrations keep their headers sealed here and never need it).
 */
import type { FastifyInstance } from 'fastify';
import { createMcpIntegrationRules, type McpIntegrationRules } from '../../../domain/mcp-integrations/configurations.ts';
import type { McpSyncDeps } from '../../../domain/mcp-integrations/sync.ts';
import type { SecretMappingResolver } from '../../../domain/providers/secret-mappings.ts';
import { mappedValues } from '../../../domain/secret-references/mapping-values.ts';
import { createSecretMappingResolver, type ClosableSecretMappingResolver } from '../../../domain/secret-references/resolve.ts';
import { createMcpConnector } from '../../../mcp/connector.ts';
import { parseAllowlist } from '../../../upstream/ssrf-guard.ts';
import type { AdminDeps } from '../admin-route.ts';

export interface McpAdminServices {
  rules: McpIntegrationRules;
  sync: McpSyncDeps;
}

const made = new WeakMap<FastifyInstance, McpAdminServices>();

export function mcpAdminServices(app: FastifyInstance, deps: AdminDeps): McpAdminServices {
  const existing = made.get(app);
  if (existing) return existing;
  const allowlist = deps.customHosts?.allowlist ?? parseAllowlist([]);
  const lookup = deps.customHosts?.lookup;
  const connector = createMcpConnector({ allowlist, lookup });
  let resolver: Promise<ClosableSecretMappingResolver> | undefined;
  const secretMappings: SecretMappingResolver = async (mappings, context) => {
    resolver ??= createSecretMappingResolver({ db: deps.database.db, kv: deps.kv, cipher: deps.secrets, allowlist, ...(lookup ? { lookup } : {}) });
    return mappedValues(await resolver)(mappings, context);
  };
  app.addHook('onClose', async () => {
    await connector.close();
    if (resolver) await (await resolver).close();
  });
  const services: McpAdminServices = {
    rules: createMcpIntegrationRules({ allowlist, lookup }),
    sync: { connector, cipher: deps.secrets, secretMappings, now: Date.now },
  };
  made.set(app, services);
  return services;
}
