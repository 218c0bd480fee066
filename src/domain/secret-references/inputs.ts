/**
 * What the secret reference use cases take, with the admin API's field names (api-surface §3.17; the transport's
 * schemas are checked against these types at compile time in src/http/admin/secret-references/schemas.ts).
 * auth_config's fields depend on manager_type and are judged by auth-config.ts.
 */
import type { ManagerType } from '../../secrets/managers/types.ts';

/** a field of auth_config: a string; null reads as absent */
export type AuthConfigInput = Readonly<Record<string, string | null>>;

export interface CreateSecretReferenceInput {
  /** when given, the caller's own organisation */
  organisation_id?: string;
  name: string;
  slug?: string;
  description?: string | null;
  manager_type: ManagerType;
  /** required by every manager type but `env`, which takes no credentials */
  auth_config?: AuthConfigInput;
  /** required by every manager type but `sealed`, whose value is in auth_config.secret_value */
  secret_path?: string;
  secret_key?: string | null;
  allow_all_workspaces?: boolean;
  /** workspace ids or slugs */
  allowed_workspaces?: readonly string[];
  tags?: Readonly<Record<string, string>> | null;
}

export interface UpdateSecretReferenceInput {
  name?: string;
  description?: string | null;
  /** replaces the whole auth_config; a secret field sent as the mask (`********`) keeps its stored value */
  auth_config?: AuthConfigInput;
  secret_path?: string;
  secret_key?: string | null;
  allow_all_workspaces?: boolean;
  allowed_workspaces?: readonly string[];
  tags?: Readonly<Record<string, string>> | null;
}

export interface ListSecretReferencesInput {
  managerType?: ManagerType | undefined;
  /** `key` or `key:value`, comma-separated; every term must match */
  tags?: string | undefined;
  search?: string | undefined;
}
