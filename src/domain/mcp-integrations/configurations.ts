/**
 * An MCP integration's URL, auth and credentials. The URL passes the custom-host SSRF rules when saved (and again
 * at every connection, src/mcp/connector.ts). `auth_type: headers` keeps `configurations.custom_headers`, each value
 * sealed with the cipher and shown as `********`; a value sent back as the mask keeps the stored one. `none` keeps
 * no credential. `oauth_auto` is refused: the gateway holds one credential per integration and runs no OAuth flow.
 * Only the Streamable HTTP transport (`http`) is spoken to upstreams.
 */
import { GatewayError, invalidParam } from '../../core/errors.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import { MASK } from '../../secrets/mask.ts';
import { checkCustomHost, type Allowlist, type LookupAll } from '../../upstream/ssrf-guard.ts';
import type { SecretMappingInput } from '../integrations/inputs.ts';
import type { McpAuthType, McpConfigurationsInput, McpTransport } from './inputs.ts';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** headers the transport itself sets: an integration overriding them would break the protocol, not authenticate */
const RESERVED = new Set(['host', 'content-length', 'content-type', 'accept', 'connection', 'transfer-encoding', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id']);
const MAX_VALUE = 8192;
export const CUSTOM_HEADERS = 'custom_headers';

export interface McpIntegrationRules {
  /** the SSRF guard's rules for the URL; `param` names the field in the error */
  checkUrl(url: string, param: string): Promise<void>;
}

export function createMcpIntegrationRules(options: { allowlist: Allowlist; lookup?: LookupAll | undefined }): McpIntegrationRules {
  return {
    async checkUrl(url, param) {
      try {
        await checkCustomHost(url, options.allowlist, options.lookup);
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        // a name that does not resolve from here may resolve where the gateway runs: it is checked per connection
        if (error.code === 'custom_host_unresolvable') return;
        throw invalidParam(param, error.message.replace('custom host', 'MCP server URL'), error.code ?? 'invalid_url');
      }
    },
  };
}

export function checkAuthAndTransport(authType: McpAuthType, transport: McpTransport): void {
  if (authType === 'oauth_auto') {
    throw invalidParam('auth_type', 'auth_type oauth_auto is not supported by this gateway: use headers (credentials sent as headers) or none.', 'unsupported_auth_type');
  }
  if (transport !== 'http') {
    throw invalidParam('transport', 'transport sse is not supported by this gateway: it speaks the Streamable HTTP transport (http) to MCP servers.', 'unsupported_transport');
  }
}

/** Configurations as stored: `custom_headers` with every value sealed. */
export interface StoredMcpConfigurations {
  custom_headers?: Record<string, string>;
}

export function storedConfigurationsOf(value: Record<string, unknown>): StoredMcpConfigurations {
  const headers = value[CUSTOM_HEADERS];
  if (typeof headers !== 'object' || headers === null) return {};
  return { custom_headers: Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string')) };
}

/**
 * Checks the given configurations against the auth type and returns them ready to store. The mask in place of a
 * value keeps the stored one (re-sealed with the current key); the mask with nothing stored is a 400.
 */
export function storableMcpConfigurations(
  given: McpConfigurationsInput,
  authType: McpAuthType,
  cipher: SecretCipher,
  stored: StoredMcpConfigurations = {},
): StoredMcpConfigurations {
  if (given.passthrough_header !== undefined) {
    throw invalidParam('configurations.passthrough_header', 'configurations.passthrough_header is not supported: the gateway sends the upstream only the integration\'s own headers.', 'unsupported_configuration');
  }
  const headers = given.custom_headers ?? {};
  const entries = Object.entries(headers);
  if (authType === 'none' && entries.length > 0) {
    throw invalidParam('configurations.custom_headers', 'configurations.custom_headers needs auth_type headers: with none, the gateway sends no credentials.');
  }
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    const param = `configurations.custom_headers.${name}`;
    if (!HEADER_NAME.test(name)) throw invalidParam(param, `${param}: the header name must be an HTTP token of at most 128 characters.`);
    const lower = name.toLowerCase();
    if (RESERVED.has(lower)) throw invalidParam(param, `${param}: ${name} is set by the MCP transport itself and cannot be configured.`);
    if (seen.has(lower)) throw invalidParam(param, `${param}: the header is named twice (header names ignore case).`);
    seen.add(lower);
    if (value === MASK) {
      const kept = stored.custom_headers?.[name];
      if (kept === undefined) throw invalidParam(param, `${param} is the mask ${MASK} but no value is stored for it: send the value itself.`, 'masked_secret');
      out[name] = cipher.reseal(kept);
      continue;
    }
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_VALUE || /[\r\n\0]/.test(value)) {
      throw invalidParam(param, `${param} must be a string of 1 to ${MAX_VALUE} characters without line breaks.`);
    }
    out[name] = cipher.seal(value);
  }
  return entries.length === 0 ? {} : { custom_headers: out };
}

/** For display: every header value replaced by the mask. */
export function maskedMcpConfigurations(stored: Record<string, unknown>): Record<string, unknown> {
  const { custom_headers: headers } = storedConfigurationsOf(stored);
  if (!headers) return {};
  return { custom_headers: Object.fromEntries(Object.keys(headers).map((name) => [name, MASK])) };
}

/** The headers opened, for a connection to the upstream only. */
export function openMcpHeaders(stored: Record<string, unknown>, cipher: SecretCipher): Record<string, string> {
  const { custom_headers: headers = {} } = storedConfigurationsOf(stored);
  return Object.fromEntries(Object.entries(headers).map(([name, sealed]) => [name, cipher.open(sealed)]));
}

/**
 * A mapping targets `configurations.custom_headers.<Header-Name>` (one header's value) or
 * `configurations.custom_headers` (a JSON object of headers, `value_format: json`); each target once.
 */
export function checkMcpSecretMappings(mappings: readonly SecretMappingInput[], authType: McpAuthType): SecretMappingInput[] {
  const seen = new Set<string>();
  mappings.forEach((mapping, index) => {
    const param = `secret_mappings[${index}].target_field`;
    const field = mapping.target_field;
    const header = field.startsWith('configurations.custom_headers.') ? field.slice('configurations.custom_headers.'.length) : undefined;
    const whole = field === 'configurations.custom_headers';
    if (!whole && (header === undefined || !HEADER_NAME.test(header) || RESERVED.has(header.toLowerCase()))) {
      throw invalidParam(param, `${param} must be configurations.custom_headers (a JSON object of headers) or configurations.custom_headers.<Header-Name>.`);
    }
    if (authType !== 'headers') throw invalidParam(param, `${param}: secret mappings fill custom_headers, which need auth_type headers.`);
    if (seen.has(field.toLowerCase())) throw invalidParam(param, `${param}: ${field} is mapped twice.`);
    seen.add(field.toLowerCase());
  });
  return mappings.map((mapping) => ({ ...mapping }));
}
