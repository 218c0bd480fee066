/**
 * What a secret reference points at, with its auth_config opened: one variant per manager type. The field names
 * are the admin API's (api-surface §3.17), so the sealed JSON reads back as these types. Only the variants the
 * gateway can honour exist here; the others are refused when a reference is saved.
 */

/** AWS Secrets Manager with an access key (AwsAccessKeyAuthConfig). */
export interface AwsAccessKeyAuth {
  aws_auth_type: 'accessKey';
  aws_access_key_id: string;
  aws_secret_access_key: string;
  aws_region: string;
  /** our extension: another endpoint (a VPC endpoint, LocalStack, a test fake), like the AWS CLI's --endpoint-url */
  aws_endpoint_url?: string;
}

/** Azure Key Vault with an Entra application's client secret (AzureEntraAuthConfig). */
export interface AzureEntraAuth {
  azure_auth_mode: 'entra';
  azure_entra_tenant_id: string;
  azure_entra_client_id: string;
  azure_entra_client_secret: string;
  azure_vault_url: string;
  /** our extension: another Entra authority (a sovereign cloud, a test fake), like the Azure SDK's authorityHost */
  azure_authority_host?: string;
}

/** HashiCorp Vault with a token (HashicorpTokenAuthConfig). */
export interface VaultTokenAuth {
  vault_auth_type: 'token';
  vault_addr: string;
  vault_token: string;
  vault_namespace?: string;
}

/** HashiCorp Vault with an AppRole login (HashicorpAppRoleAuthConfig). */
export interface VaultAppRoleAuth {
  vault_auth_type: 'approle';
  vault_addr: string;
  vault_role_id: string;
  vault_secret_id: string;
  vault_namespace?: string;
}

/** Our own `sealed` type: the value itself, sealed in the row with the rest of auth_config. */
export interface SealedValueAuth {
  secret_value: string;
}

export type SecretSource =
  | { managerType: 'aws_sm'; auth: AwsAccessKeyAuth }
  | { managerType: 'azure_kv'; auth: AzureEntraAuth }
  | { managerType: 'hashicorp_vault'; auth: VaultTokenAuth | VaultAppRoleAuth }
  | { managerType: 'sealed'; auth: SealedValueAuth }
  /** our own `env` type: secret_path names an environment variable of the gateway; no credentials */
  | { managerType: 'env'; auth: Record<string, never> };

export type ManagerType = SecretSource['managerType'];

export const MANAGER_TYPES: readonly ManagerType[] = ['aws_sm', 'azure_kv', 'hashicorp_vault', 'sealed', 'env'];

/**
 * A secret as its manager holds it: a string (AWS SecretString, an Azure secret's value, a sealed value, an
 * environment variable), or a map (a Vault KV v2 secret's `data.data`). `secret_key` picks from either.
 */
export type RawSecret = string | Readonly<Record<string, unknown>>;
