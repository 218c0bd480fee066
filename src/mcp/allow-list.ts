/**
 * What an MCP server lets through: a capability must be listed by the upstream at the last sync, enabled on the
 * integration, and not switched off on the server. Anything else (a tool that appeared upstream since the last
 * sync included) is hidden from lists and refused when called: an allow-list, not a deny-list.
 */
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';

export interface CapabilityFlag {
  type: string;
  name: string;
  enabled: boolean;
}

export interface AllowList {
  tools: ReadonlySet<string>;
  prompts: ReadonlySet<string>;
  resources: ReadonlySet<string>;
  /** the enabled resource templates, by their URI template */
  templates: ReadonlyMap<string, UriTemplate>;
}

const key = (type: string, name: string) => `${type}\u0000${name}`;

export function allowListOf(integration: readonly CapabilityFlag[], server: readonly CapabilityFlag[]): AllowList {
  const switchedOff = new Set(server.filter((entry) => !entry.enabled).map((entry) => key(entry.type, entry.name)));
  const usable = integration.filter((entry) => entry.enabled && !switchedOff.has(key(entry.type, entry.name)));
  const names = (type: string) => new Set(usable.filter((entry) => entry.type === type).map((entry) => entry.name));
  const templates = new Map<string, UriTemplate>();
  for (const entry of usable) {
    if (entry.type !== 'resource_template') continue;
    try {
      templates.set(entry.name, new UriTemplate(entry.name));
    } catch {
      // a template the SDK cannot parse matches nothing: its resources stay refused
    }
  }
  return { tools: names('tool'), prompts: names('prompt'), resources: names('resource'), templates };
}

/** A resource may be read when it is an enabled resource or matches an enabled template. */
export function allowsResource(list: AllowList, uri: string): boolean {
  if (list.resources.has(uri)) return true;
  for (const template of list.templates.values()) if (template.match(uri) !== null) return true;
  return false;
}
