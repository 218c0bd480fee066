/**
 * Reading what an upstream MCP server offers, and opening the credentials to reach it. A sync connects with the
 * integration's headers (stored ones opened, secret mappings resolved), runs `initialize` and every list, and
 * stores the result: server name, version, protocol version and capability flags, and the capabilities (new ones
 * enabled, known ones keeping their flag, vanished ones removed). A failed sync is recorded (`sync_status: failed`
 * with the reason) and leaves the last good capabilities in place. Error text never carries a header value.
 *
 * When: after an integration is created or its URL or credentials change, on POST /mcp-servers/{id}/test, and
 * lazily when capabilities are listed or a gateway call arrives before any sync succeeded.
 */
import { badRequest } from '../../core/errors.ts';
import type { McpConnector, McpTarget } from '../../mcp/connector.ts';
import { discover } from '../../mcp/discovery.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import { MASK } from '../../secrets/mask.ts';
import type { Db } from '../../storage/database.ts';
import { replaceMcpCapabilities } from '../../storage/repositories/mcp-capabilities.ts';
import { updateMcpIntegrationRow, type McpIntegrationRow } from '../../storage/repositories/mcp-integrations.ts';
import { storedSecretMappings, type SecretMappingResolver } from '../providers/secret-mappings.ts';
import { openMcpHeaders } from './configurations.ts';

export interface McpSyncDeps {
  connector: McpConnector;
  cipher: SecretCipher;
  /** resolves secret mappings; an integration with mappings cannot connect without one */
  secretMappings?: SecretMappingResolver | undefined;
  now: () => number;
}

const HEADERS_FIELD = 'configurations.custom_headers';

/** The URL and the headers to send, for a connection made on behalf of `workspaceId`. */
export async function upstreamTargetOf(row: McpIntegrationRow, workspaceId: string, deps: Pick<McpSyncDeps, 'cipher' | 'secretMappings'>): Promise<McpTarget> {
  const headers = openMcpHeaders(row.configurations, deps.cipher);
  const mappings = storedSecretMappings(row.secretMappings);
  if (mappings.length === 0) return { url: row.url, headers };
  if (!deps.secretMappings) {
    throw badRequest(`MCP integration "${row.slug}" takes its headers from secret references, which this gateway cannot resolve here.`, 'secret_mappings_unresolved');
  }
  const values = await deps.secretMappings(mappings, { organisationId: row.organisationId, workspaceId });
  for (const [field, value] of values) {
    if (field === HEADERS_FIELD && typeof value === 'object' && value !== null) {
      for (const [name, inner] of Object.entries(value)) if (typeof inner === 'string') headers[name] = inner;
    } else if (field.startsWith(`${HEADERS_FIELD}.`) && typeof value === 'string') {
      headers[field.slice(HEADERS_FIELD.length + 1)] = value;
    }
  }
  return { url: row.url, headers };
}

/** An error's text with every header value masked: an upstream may quote what it was sent. */
export function scrubbed(error: unknown, target: McpTarget | undefined): string {
  let message = error instanceof Error ? error.message : String(error);
  for (const value of Object.values(target?.headers ?? {})) if (value.length >= 4) message = message.split(value).join(MASK);
  return message.slice(0, 1000);
}

/** The HTTP status an SDK transport error carries, if any. */
function statusOf(error: unknown): number | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && code >= 100 && code <= 599 ? code : null;
}

export interface SyncOutcome {
  row: McpIntegrationRow;
  ok: boolean;
  error: string | null;
  statusCode: number | null;
  responseTimeMs: number;
}

export async function syncMcpIntegration(db: Db, row: McpIntegrationRow, workspaceId: string, deps: McpSyncDeps): Promise<SyncOutcome> {
  const started = deps.now();
  let target: McpTarget | undefined;
  try {
    target = await upstreamTargetOf(row, workspaceId, deps);
    const connection = await deps.connector.connect(target);
    try {
      const found = await discover(connection);
      await replaceMcpCapabilities(db, row.id, found.capabilities);
      const updated = await updateMcpIntegrationRow(db, row.id, {
        serverName: found.serverName,
        serverVersion: found.serverVersion,
        protocolVersion: found.protocolVersion,
        capabilityFlags: found.flags,
        syncStatus: 'synced',
        lastSyncedAt: new Date(deps.now()),
        syncError: null,
      });
      return { row: updated ?? row, ok: true, error: null, statusCode: 200, responseTimeMs: deps.now() - started };
    } finally {
      await connection.close();
    }
  } catch (error) {
    const reason = scrubbed(error, target);
    const updated = await updateMcpIntegrationRow(db, row.id, { syncStatus: 'failed', syncError: reason });
    return { row: updated ?? row, ok: false, error: reason, statusCode: statusOf(error), responseTimeMs: deps.now() - started };
  }
}

/** Syncs when no sync has succeeded yet (the capabilities would be empty); otherwise the row as it is. */
export async function ensureSynced(db: Db, row: McpIntegrationRow, workspaceId: string, deps: McpSyncDeps): Promise<McpIntegrationRow> {
  if (row.syncStatus === 'synced') return row;
  return (await syncMcpIntegration(db, row, workspaceId, deps)).row;
}
