/**
 * Creates an MCP integration: an organisation one (admin keys, when no workspace is named) or a workspace one (its
 * managers, or admin keys naming it). The URL passes the SSRF rules and every header value is sealed before it is
 * stored. An organisation integration starts enabled for no workspace (PUT .../workspaces says which); the first
 * sync with the upstream runs after the commit (sync.ts).
 */
import type { Principal } from '../../core/context.ts';
import { conflict, invalidParam } from '../../core/errors.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { Db } from '../../storage/database.ts';
import { insertMcpIntegration, mcpIntegrationSlugTaken, type McpIntegrationRow } from '../../storage/repositories/mcp-integrations.ts';
import { isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { actorId } from '../guardrails/access.ts';
import { chooseSlug, prefixedSlug } from '../slugs.ts';
import { targetWorkspace } from '../workspaces/access.ts';
import { requireMcpIntegrationManager } from './access.ts';
import { checkAuthAndTransport, checkMcpSecretMappings, storableMcpConfigurations, type McpIntegrationRules } from './configurations.ts';
import type { CreateMcpIntegrationInput } from './inputs.ts';

export function checkOrganisation(principal: Principal, organisationId: string | undefined): void {
  if (organisationId !== undefined && organisationId.toLowerCase() !== principal.organisationId) {
    throw invalidParam('organisation_id', 'organisation_id must be the caller\'s own organisation.');
  }
}

export async function createMcpIntegration(
  db: Db,
  principal: Principal,
  body: CreateMcpIntegrationInput,
  rules: McpIntegrationRules,
  cipher: SecretCipher,
): Promise<McpIntegrationRow> {
  checkOrganisation(principal, body.organisation_id);
  const workspaceId = await targetWorkspace(db, principal, body.workspace_id);
  requireMcpIntegrationManager(principal, workspaceId, 'create');
  checkAuthAndTransport(body.auth_type, body.transport);
  await rules.checkUrl(body.url, 'url');
  const configurations = storableMcpConfigurations(body.configurations ?? {}, body.auth_type, cipher);
  const secretMappings = checkMcpSecretMappings(body.secret_mappings ?? [], body.auth_type);
  const organisationId = principal.organisationId;
  const slug = await chooseSlug({
    requested: body.slug,
    generate: () => prefixedSlug('mcp', body.name, 20, 'integration'),
    taken: (candidate) => mcpIntegrationSlugTaken(db, organisationId, candidate),
    resource: 'an MCP integration',
    conflictCode: 'mcp_integration_slug_taken',
  });
  try {
    return await insertMcpIntegration(db, {
      organisationId,
      workspaceId,
      slug,
      name: body.name,
      description: body.description ?? null,
      url: body.url,
      authType: body.auth_type,
      transport: body.transport,
      configurations: { ...configurations },
      secretMappings,
      createdBy: actorId(principal),
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`An MCP integration with slug "${slug}" already exists.`, 'mcp_integration_slug_taken');
    throw error;
  }
}
