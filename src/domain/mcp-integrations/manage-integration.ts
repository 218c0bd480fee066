/** Updates and deletes an MCP integration the caller manages. */
import type { Principal } from '../../core/context.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { Db } from '../../storage/database.ts';
import { deleteMcpIntegrationRow, updateMcpIntegrationRow, type McpIntegrationRow, type NewMcpIntegrationRow } from '../../storage/repositories/mcp-integrations.ts';
import { managedMcpIntegration, mcpIntegrationNotFound } from './access.ts';
import { checkAuthAndTransport, checkMcpSecretMappings, storableMcpConfigurations, storedConfigurationsOf, type McpIntegrationRules } from './configurations.ts';
import type { McpAuthType, McpTransport, UpdateMcpIntegrationInput } from './inputs.ts';

export interface UpdatedMcpIntegration {
  row: McpIntegrationRow;
  /** the URL or the credentials changed: what the upstream offers is read again */
  resync: boolean;
}

/**
 * A PUT replaces what it names: `configurations` as a whole (a header left out is removed; one sent back as
 * `********` keeps its value). Moving to `auth_type: none` drops the stored headers.
 */
export async function updateMcpIntegration(
  db: Db,
  principal: Principal,
  idOrSlug: string,
  body: UpdateMcpIntegrationInput,
  rules: McpIntegrationRules,
  cipher: SecretCipher,
): Promise<UpdatedMcpIntegration> {
  const row = await managedMcpIntegration(db, principal, idOrSlug, 'update');
  const authType = (body.auth_type ?? row.authType) as McpAuthType;
  checkAuthAndTransport(authType, (body.transport ?? row.transport) as McpTransport);
  const changes: Partial<NewMcpIntegrationRow> = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.description !== undefined) changes.description = body.description;
  if (body.url !== undefined) {
    await rules.checkUrl(body.url, 'url');
    changes.url = body.url;
  }
  if (body.auth_type !== undefined) changes.authType = body.auth_type;
  if (body.transport !== undefined) changes.transport = body.transport;
  if (body.configurations !== undefined) {
    changes.configurations = { ...storableMcpConfigurations(body.configurations, authType, cipher, storedConfigurationsOf(row.configurations)) };
  } else if (authType === 'none') {
    changes.configurations = {};
  }
  if (body.secret_mappings !== undefined) changes.secretMappings = checkMcpSecretMappings(body.secret_mappings, authType);
  else if (authType !== 'headers') changes.secretMappings = [];
  const updated = await updateMcpIntegrationRow(db, row.id, changes);
  if (!updated) throw mcpIntegrationNotFound(idOrSlug);
  const resync = ['url', 'authType', 'configurations', 'secretMappings'].some((field) => field in changes);
  return { row: updated, resync };
}

/** Deletes the integration with its capabilities, workspace access and the MCP servers built on it. */
export async function deleteMcpIntegration(db: Db, principal: Principal, idOrSlug: string): Promise<McpIntegrationRow> {
  const row = await managedMcpIntegration(db, principal, idOrSlug, 'delete');
  await deleteMcpIntegrationRow(db, row.id);
  return row;
}
