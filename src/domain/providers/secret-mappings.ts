/**
 * Secret mappings (api-surface §0.7 SecretMapping): an integration or a provider may take its key or one of its
 * settings from a secret reference instead of a stored value. The references themselves (where a secret lives, how
 * it is fetched and for how long it is held) are the secret references group's: it is injected here as a
 * SecretMappingResolver. Without one, a record that has mappings is refused, never used without them.
 */
import { badRequest } from '../../core/errors.ts';

export interface SecretMapping {
  /** `key`, `configurations.<field>` (integrations) or `model_config.<field>` (virtual keys) */
  target_field: string;
  /** the secret reference's id or slug */
  secret_reference_id: string;
  secret_key?: string | null | undefined;
  value_format?: 'json' | 'string' | null | undefined;
}

export interface SecretMappingContext {
  organisationId: string;
  workspaceId: string;
}

/** The value of every mapping, by its target field. A mapping it cannot resolve is its error to throw. */
export type SecretMappingResolver = (mappings: readonly SecretMapping[], context: SecretMappingContext) => Promise<ReadonlyMap<string, unknown>>;

/** The mappings of a stored record (a JSON column), keeping only well-formed entries. */
export function storedSecretMappings(value: unknown): SecretMapping[] {
  if (!Array.isArray(value)) return [];
  return value.filter((entry): entry is SecretMapping => {
    if (typeof entry !== 'object' || entry === null) return false;
    const { target_field: field, secret_reference_id: reference } = entry as Record<string, unknown>;
    return typeof field === 'string' && typeof reference === 'string';
  });
}

/** What mapped values replace: the credential, the integration's settings, a virtual key's model settings. */
export interface MappedSettings {
  apiKey: string | undefined;
  configurations: Readonly<Record<string, unknown>>;
  modelConfig: Readonly<Record<string, unknown>>;
}

const CONFIGURATIONS = 'configurations.';
const MODEL_CONFIG = 'model_config.';

/**
 * The settings with every mapped value in place. `param` names where the record was addressed (a header, a config
 * field, `model`), for the error a request gets when the gateway has no resolver.
 */
export async function applySecretMappings(
  settings: MappedSettings,
  mappings: readonly SecretMapping[],
  context: SecretMappingContext & { label: string; param: string },
  resolver: SecretMappingResolver | undefined,
): Promise<MappedSettings> {
  if (mappings.length === 0) return settings;
  if (!resolver) {
    throw badRequest(
      `${context.label} takes its credentials from secret references (secret_mappings), which this gateway cannot resolve.`,
      'secret_mappings_unresolved',
      context.param,
    );
  }
  const values = await resolver(mappings, context);
  let { apiKey } = settings;
  const configurations: Record<string, unknown> = { ...settings.configurations };
  const modelConfig: Record<string, unknown> = { ...settings.modelConfig };
  for (const [field, value] of values) {
    if (field === 'key') apiKey = typeof value === 'string' ? value : JSON.stringify(value);
    else if (field.startsWith(CONFIGURATIONS)) configurations[field.slice(CONFIGURATIONS.length)] = value;
    else if (field.startsWith(MODEL_CONFIG)) modelConfig[field.slice(MODEL_CONFIG.length)] = value;
  }
  return { apiKey, configurations, modelConfig };
}
