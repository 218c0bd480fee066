/**
 * An integration's `configurations`: only what the gateway can honour for its provider. That is `custom_host` for
 * every provider (checked by the SSRF guard's rules when saved, and again by the upstream client at every call),
 * and the config fields the provider's adapter declares (src/providers/<vendor>/cloud-settings.ts: the Azure,
 * Bedrock and Vertex settings). Anything else is a 400 naming the field, rather than a setting stored and silently
 * ignored. Nothing here names a provider: the declarations say what each one reads.
 *
 * A field is secret when its adapter declares it so or its name says so (secrets/mask.ts); a secret is sealed with
 * the cipher before it is stored and shown as `********`. A secret may be given as a JSON object (a service
 * account key file); it is stored as its JSON text, the form the adapter reads.
 *
 * Besides the string settings, a provider may declare structured ones (the Azure deployment list) and rules between
 * fields (an auth mode and the credentials it needs): src/providers/integration-settings.ts. `custom_headers` is
 * every provider's (custom-headers.ts).
 */
import { GatewayError, invalidParam } from '../../core/errors.ts';
import type { PresentConfigurations } from '../../providers/integration-settings.ts';
import { cloudSettingsOf, integrationDeclarationOf, type ProviderRegistry } from '../../providers/registry.ts';
import { isSensitiveName, MASK } from '../../secrets/mask.ts';
import { isSealed, type SecretCipher } from '../../secrets/cipher.ts';
import { checkCustomHost, type Allowlist, type LookupAll } from '../../upstream/ssrf-guard.ts';
import { CUSTOM_HEADERS, storableCustomHeaders } from './custom-headers.ts';

export const CUSTOM_HOST = 'custom_host';
const MAX_VALUE = 2048;
const MAX_SECRET = 65_536;

export interface ConfigurationField {
  secret: boolean;
  /** a structured field: checks the value as sent and returns it as stored (JSON) */
  parse?: ((value: unknown, param: string) => unknown) | undefined;
  /** a URL the gateway calls (custom_host, a token endpoint): the SSRF guard's rules apply when saved */
  url?: boolean;
}

export interface IntegrationRules {
  isKnownProvider(name: string): boolean;
  /** the configuration fields the provider reads, each with whether it is a secret */
  fieldsOf(name: string): ReadonlyMap<string, ConfigurationField>;
  /** the provider's rules between fields, on what will be stored; a 400 naming the field */
  checkFields(name: string, configurations: PresentConfigurations): void;
  /** the SSRF guard's rules for a custom host; `param` names the field in the error */
  checkHost(url: string, param: string): Promise<void>;
  /** every field that is secret for some provider (what an audit record masks before it knows the provider) */
  readonly secretFields: ReadonlySet<string>;
}

export function createIntegrationRules(options: { registry: ProviderRegistry; allowlist: Allowlist; lookup?: LookupAll | undefined }): IntegrationRules {
  const { registry, allowlist, lookup } = options;
  const fields = new Map<string, Map<string, ConfigurationField>>();
  for (const [name, adapter] of registry) {
    const own = new Map<string, ConfigurationField>([[CUSTOM_HOST, { secret: false, url: true }], [CUSTOM_HEADERS, { secret: false }]]);
    for (const declaration of cloudSettingsOf(new Map([[name, adapter]]))) {
      for (const { configField, secret } of declaration.settings) {
        if (configField) own.set(configField, { secret: secret === true || isSensitiveName(configField) });
      }
    }
    const declaration = integrationDeclarationOf(name);
    for (const setting of declaration?.settings ?? []) own.set(setting.field, { secret: false, parse: setting.parse });
    for (const field of declaration?.urlFields ?? []) own.set(field, { ...own.get(field), secret: own.get(field)?.secret ?? false, url: true });
    fields.set(name, own);
  }
  const secretFields = new Set([...fields.values()].flatMap((own) => [...own].filter(([, field]) => field.secret).map(([name]) => name)));
  // a custom header may be a credential whatever its name: the audit record masks them all
  secretFields.add(CUSTOM_HEADERS);
  return {
    secretFields,
    isKnownProvider: (name) => registry.has(name),
    fieldsOf: (name) => fields.get(name) ?? new Map(),
    checkFields: (name, configurations) => integrationDeclarationOf(name)?.check?.(configurations),
    async checkHost(url, param) {
      try {
        await checkCustomHost(url, allowlist, lookup);
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        // a name that does not resolve from here may resolve where the gateway runs: the guard checks it per call
        if (error.code === 'custom_host_unresolvable') return;
        throw invalidParam(param, error.message, error.code ?? 'invalid_custom_host');
      }
    },
  };
}

/** Configurations as they are stored: strings (secrets sealed), structured fields as JSON, custom headers a map. */
export type StoredConfigurations = Record<string, unknown>;

function plainValue(value: unknown, param: string, secret: boolean): string {
  const text = secret && typeof value === 'object' && value !== null && !Array.isArray(value) ? JSON.stringify(value) : value;
  const max = secret ? MAX_SECRET : MAX_VALUE;
  if (typeof text !== 'string' || text.length === 0 || text.length > max) {
    throw invalidParam(param, `${param} must be a string of 1 to ${max} characters${secret ? ' (or, for a key file, a JSON object)' : ''}.`);
  }
  return text;
}

/**
 * Checks `given` against what the provider reads and returns it ready to store: secrets sealed. A secret sent back
 * as the mask keeps the stored value (`stored`, re-sealed with the current key); the mask with nothing stored is a
 * 400 naming the field.
 */
export async function storableConfigurations(
  given: Record<string, unknown>,
  providerId: string,
  rules: IntegrationRules,
  cipher: SecretCipher,
  stored: StoredConfigurations = {},
): Promise<StoredConfigurations> {
  const fields = rules.fieldsOf(providerId);
  const out: StoredConfigurations = {};
  for (const [name, value] of Object.entries(given)) {
    const param = `configurations.${name}`;
    const field = fields.get(name);
    if (!field) {
      throw invalidParam(param, `${param} is not a setting the gateway reads for ${providerId}; it reads: ${[...fields.keys()].join(', ')}.`, 'unsupported_configuration');
    }
    if (name === CUSTOM_HEADERS) {
      out[name] = storableCustomHeaders(value, param, cipher, stored[name]);
      continue;
    }
    if (field.parse) {
      out[name] = field.parse(value, param);
      continue;
    }
    if (field.secret && value === MASK) {
      const kept = stored[name];
      if (typeof kept !== 'string') throw invalidParam(param, `${param} is the mask ${MASK} but no value is stored for it: send the value itself.`, 'masked_secret');
      out[name] = cipher.reseal(kept);
      continue;
    }
    const text = plainValue(value, param, field.secret);
    if (field.url) await rules.checkHost(text, param);
    out[name] = field.secret ? cipher.seal(text) : text;
  }
  return out;
}

/** Sealed values inside a structured one (a custom header) replaced by the mask. */
function maskSealed(value: unknown, depth = 0): unknown {
  if (isSealed(value) || depth > 10) return MASK;
  if (Array.isArray(value)) return value.map((item) => maskSealed(item, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, maskSealed(inner, depth + 1)]));
}

/** For display: every secret replaced by the mask. */
export function maskedConfigurations(stored: Record<string, unknown>, providerId: string, rules: IntegrationRules): Record<string, unknown> {
  const fields = rules.fieldsOf(providerId);
  return Object.fromEntries(
    Object.entries(stored).map(([name, value]) => [name, fields.get(name)?.secret === true || isSensitiveName(name) ? MASK : maskSealed(value)]),
  );
}

/**
 * The provider's rules between fields (auth modes and their credentials), on the configurations as they will be
 * stored: a secret counts as present without being opened, and so does a field a secret mapping fills.
 */
export function checkConfigurationRules(
  providerId: string,
  state: { configurations: StoredConfigurations; mappedFields: readonly string[]; hasKey: boolean },
  rules: IntegrationRules,
): void {
  const fields = rules.fieldsOf(providerId);
  const mapped = new Set(state.mappedFields);
  rules.checkFields(providerId, {
    hasKey: state.hasKey || mapped.has('key'),
    has: (field) => state.configurations[field] !== undefined || mapped.has(`configurations.${field}`),
    value: (field) => {
      const value = state.configurations[field];
      return fields.get(field)?.secret === true || isSealed(value) ? undefined : value;
    },
  });
}

/** The configuration fields a secret mapping may target. */
export function configurationFields(providerId: string, rules: IntegrationRules): string[] {
  return [...rules.fieldsOf(providerId).keys()];
}
