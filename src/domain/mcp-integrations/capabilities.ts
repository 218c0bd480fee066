/**
 * An MCP integration's capabilities (§3.15 > Capabilities): what the upstream listed at the last sync, each with
 * the integration's enabled flag. Listing them syncs first when no sync has succeeded yet. A bulk update may only
 * name capabilities the upstream listed: anything else is a 400 naming the entry.
 */
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { listMcpCapabilities, setMcpCapabilitiesEnabled, type McpCapabilityRow } from '../../storage/repositories/mcp-capabilities.ts';
import type { McpIntegrationRow } from '../../storage/repositories/mcp-integrations.ts';
import { managedMcpIntegration, visibleMcpIntegration } from './access.ts';
import type { CapabilitySwitchInput, McpCapabilityKind, UpdateCapabilitiesInput } from './inputs.ts';
import { ensureSynced, type McpSyncDeps } from './sync.ts';

export interface CapabilityPage {
  page: number;
  size: number;
  type?: McpCapabilityKind | undefined;
}

const COUNTED: ReadonlyArray<[McpCapabilityKind, string]> = [['tool', 'tools'], ['prompt', 'prompts'], ['resource', 'resources'], ['resource_template', 'resource_templates']];

/** `{tools: {total, enabled}, ...}` over every capability, whatever the type filter. */
export function capabilityCounts<T extends { type: string; usable: boolean }>(rows: readonly T[]) {
  return Object.fromEntries(COUNTED.map(([type, label]) => {
    const ofType = rows.filter((row) => row.type === type);
    return [label, { total: ofType.length, enabled: ofType.filter((row) => row.usable).length }];
  }));
}

export function pageOf<T>(rows: readonly T[], page: CapabilityPage): { data: T[]; total: number; has_more: boolean } {
  const start = (page.page - 1) * page.size;
  return { data: rows.slice(start, start + page.size), total: rows.length, has_more: start + page.size < rows.length };
}

/** The integration (synced if it never was) and its capabilities. */
export async function integrationCapabilities(
  db: Db,
  principal: Principal,
  idOrSlug: string,
  deps: McpSyncDeps,
): Promise<{ row: McpIntegrationRow; capabilities: McpCapabilityRow[] }> {
  const visible = await visibleMcpIntegration(db, principal, idOrSlug);
  const row = await ensureSynced(db, visible, visible.workspaceId ?? principal.workspaceId, deps);
  return { row, capabilities: await listMcpCapabilities(db, row.id) };
}

/** Each switch must name a capability in `known` (by type and name), once. */
export function checkSwitches(changes: readonly CapabilitySwitchInput[], known: ReadonlyArray<{ type: string; name: string }>): void {
  const names = new Set(known.map((entry) => `${entry.type}\u0000${entry.name}`));
  const seen = new Set<string>();
  changes.forEach((change, index) => {
    const key = `${change.type}\u0000${change.name}`;
    if (!names.has(key)) {
      throw invalidParam(`capabilities[${index}].name`, `capabilities[${index}]: the upstream listed no ${change.type} "${change.name}" at the last sync.`, 'unknown_capability');
    }
    if (seen.has(key)) throw invalidParam(`capabilities[${index}].name`, `capabilities[${index}]: ${change.type} "${change.name}" is named twice.`);
    seen.add(key);
  });
}

export async function updateIntegrationCapabilities(db: Db, principal: Principal, idOrSlug: string, body: UpdateCapabilitiesInput): Promise<McpIntegrationRow> {
  const row = await managedMcpIntegration(db, principal, idOrSlug, 'change the capabilities of');
  checkSwitches(body.capabilities, await listMcpCapabilities(db, row.id));
  await setMcpCapabilitiesEnabled(db, row.id, body.capabilities);
  return row;
}

export function capabilityView(row: McpCapabilityRow) {
  const definition = row.definition;
  const field = (name: string) => (definition[name] === undefined ? null : definition[name]);
  return {
    name: row.name,
    type: row.type,
    title: row.title,
    description: row.description,
    icons: field('icons'),
    enabled: row.enabled,
    input_schema: field('input_schema'),
    output_schema: field('output_schema'),
    execution: field('execution'),
    annotations: field('annotations'),
    arguments: field('arguments'),
    uri: row.type === 'resource' ? row.name : null,
    uri_template: row.type === 'resource_template' ? row.name : null,
    mime_type: field('mime_type'),
    size: field('size'),
  };
}
