/**
 * auth_config per manager type (api-surface §3.17 CreateSecretReferenceRequest): which variant a field picks, which
 * fields each variant takes, and which of them are secrets (sealed at rest with the rest, masked in every read and
 * in the audit record). A variant the gateway cannot honour is refused with a 400 naming the field that picks it,
 * rather than stored and failing at request time.
 */
import { invalidParam } from '../../core/errors.ts';
import { MASK } from '../../secrets/mask.ts';
import type { ManagerType, SecretSource } from '../../secrets/managers/types.ts';
import type { AuthConfigInput } from './inputs.ts';

interface Variant {
  required: readonly string[];
  optional: readonly string[];
}

type Rules = { picker: string | undefined; variants: Record<string, Variant | { unsupported: string }> };

const UNSUPPORTED_AWS = 'needs AWS credentials of the gateway\'s own (STS, an instance or task role), which this gateway does not use: use accessKey';
const UNSUPPORTED_AZURE = 'needs the gateway\'s own managed identity (the instance metadata service), which this gateway does not use: use entra';

const RULES: Record<ManagerType, Rules> = {
  aws_sm: {
    picker: 'aws_auth_type',
    variants: {
      accessKey: { required: ['aws_access_key_id', 'aws_secret_access_key', 'aws_region'], optional: ['aws_endpoint_url'] },
      assumedRole: { unsupported: UNSUPPORTED_AWS },
      serviceRole: { unsupported: UNSUPPORTED_AWS },
    },
  },
  azure_kv: {
    picker: 'azure_auth_mode',
    variants: {
      entra: {
        required: ['azure_entra_tenant_id', 'azure_entra_client_id', 'azure_entra_client_secret', 'azure_vault_url'],
        optional: ['azure_authority_host'],
      },
      managed: { unsupported: UNSUPPORTED_AZURE },
      default: { unsupported: UNSUPPORTED_AZURE },
    },
  },
  hashicorp_vault: {
    picker: 'vault_auth_type',
    variants: {
      token: { required: ['vault_addr', 'vault_token'], optional: ['vault_namespace'] },
      approle: { required: ['vault_addr', 'vault_role_id', 'vault_secret_id'], optional: ['vault_namespace'] },
      kubernetes: { unsupported: 'needs the gateway\'s own Kubernetes service account token, which this gateway does not use: use token or approle' },
    },
  },
  sealed: { picker: undefined, variants: { '': { required: ['secret_value'], optional: [] } } },
  env: { picker: undefined, variants: { '': { required: [], optional: [] } } },
};

/** Masked in every read and in the audit record. */
const SECRET_FIELDS = new Set(['aws_secret_access_key', 'azure_entra_client_secret', 'vault_token', 'vault_secret_id', 'secret_value']);
const URL_FIELDS = new Set(['aws_endpoint_url', 'azure_vault_url', 'azure_authority_host', 'vault_addr']);

const KNOWN_FIELDS = new Set(
  Object.values(RULES).flatMap((rules) => [
    ...(rules.picker ? [rules.picker] : []),
    ...Object.values(rules.variants).flatMap((variant) => ('required' in variant ? [...variant.required, ...variant.optional] : [])),
  ]),
);

/** A field that may be shown: known, and not a secret. Anything else (a misspelt secret too) is masked. */
export function isPublicAuthField(name: string): boolean {
  return KNOWN_FIELDS.has(name) && !SECRET_FIELDS.has(name);
}

/** auth_config as a read shows it: every secret (and anything unknown) masked. */
export function maskedAuthConfig(auth: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(auth).map(([name, value]) => [name, isPublicAuthField(name) ? value : MASK]));
}

/** Printable ASCII without spaces: what may go into a header (X-Vault-Token) or a signature. */
const TOKEN = /^[\x21-\x7e]+$/;
/** AWS region names: us-east-1, eu-central-2, us-gov-west-1, cn-north-1 (they become part of a host name) */
const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const FIELD_PATTERNS: Record<string, { pattern: RegExp; what: string }> = {
  aws_region: { pattern: AWS_REGION, what: 'an AWS region such as us-east-1' },
  aws_access_key_id: { pattern: /^\w{1,128}$/, what: 'an AWS access key id (letters and digits)' },
  aws_secret_access_key: { pattern: TOKEN, what: 'printable characters without spaces' },
  azure_entra_tenant_id: { pattern: /^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$/, what: 'a tenant id (a GUID) or a tenant domain' },
  azure_entra_client_id: { pattern: /^[A-Za-z0-9-]{1,128}$/, what: 'a client id (a GUID)' },
  vault_token: { pattern: TOKEN, what: 'printable characters without spaces' },
  vault_namespace: { pattern: /^[A-Za-z0-9_.\/-]{1,255}$/, what: 'a Vault namespace path (letters, digits, _ . / -)' },
};

const MAX_FIELD_LENGTH = 8192;

function checkUrl(field: string, value: string): void {
  const param = `auth_config.${field}`;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw invalidParam(param, `${param} must be an absolute http(s) URL.`);
  if (url.username !== '' || url.password !== '') throw invalidParam(param, `${param} must not contain credentials.`);
  if (url.search !== '' || url.hash !== '') throw invalidParam(param, `${param} must not have a query or a fragment.`);
}

function checkField(field: string, value: string): void {
  const param = `auth_config.${field}`;
  if (value.length === 0 || value.length > MAX_FIELD_LENGTH) throw invalidParam(param, `${param} must be 1 to ${MAX_FIELD_LENGTH} characters.`);
  if (URL_FIELDS.has(field)) checkUrl(field, value);
  const rule = FIELD_PATTERNS[field];
  if (rule && !rule.pattern.test(value)) throw invalidParam(param, `${param} must be ${rule.what}.`);
}

function pickVariant(managerType: ManagerType, fields: Record<string, string>): { name: string; variant: Variant } {
  const rules = RULES[managerType];
  if (rules.picker === undefined) return { name: '', variant: rules.variants['']! as Variant };
  const param = `auth_config.${rules.picker}`;
  const name = fields[rules.picker];
  const variant = name === undefined ? undefined : rules.variants[name];
  if (name === undefined || variant === undefined) {
    throw invalidParam(param, `${param} must be one of ${Object.keys(rules.variants).join(', ')} for manager_type ${managerType}.`);
  }
  if ('unsupported' in variant) throw invalidParam(param, `${param} ${name} is not supported: it ${variant.unsupported}.`, 'unsupported_auth_type');
  return { name, variant };
}

/**
 * Validates auth_config for `managerType` and returns the source as stored. `stored` is the reference's current
 * source on an update: a secret field sent as the mask keeps its stored value (a client may send back what it
 * read), as long as the variant is the same.
 */
export function parseAuthConfig(managerType: ManagerType, input: AuthConfigInput | undefined, stored?: SecretSource): SecretSource {
  if (input === undefined) {
    if (managerType === 'env') return { managerType, auth: {} };
    throw invalidParam('auth_config', `auth_config is required for manager_type ${managerType}.`);
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(input)) if (value !== null) fields[name] = value;
  const { name: variantName, variant } = pickVariant(managerType, fields);
  const picker = RULES[managerType].picker;
  const allowed = new Set([...(picker ? [picker] : []), ...variant.required, ...variant.optional]);
  const storedAuth = stored?.managerType === managerType ? (stored.auth as Readonly<Record<string, unknown>>) : undefined;
  const sameVariant = storedAuth !== undefined && (picker === undefined || storedAuth[picker] === variantName);
  for (const [field, value] of Object.entries(fields)) {
    const param = `auth_config.${field}`;
    if (!allowed.has(field)) {
      const variantText = picker ? ` with ${picker} ${variantName}` : '';
      throw invalidParam(param, `${param} is not a field of manager_type ${managerType}${variantText}.`);
    }
    if (value === MASK && SECRET_FIELDS.has(field)) {
      const kept = sameVariant ? storedAuth[field] : undefined;
      if (typeof kept !== 'string') throw invalidParam(param, `${param} must be the secret itself: the mask only keeps a stored secret.`);
      fields[field] = kept;
      continue;
    }
    checkField(field, value);
  }
  for (const field of variant.required) {
    if (fields[field] === undefined) throw invalidParam(`auth_config.${field}`, `auth_config.${field} is required for manager_type ${managerType}.`);
  }
  return { managerType, auth: fields } as SecretSource;
}
