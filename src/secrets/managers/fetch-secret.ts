/** One fetch from the manager a reference names: the only place that switches on the manager type. */
import { fetchAwsSecret } from './aws-secrets-manager.ts';
import { fetchAzureSecret } from './azure-key-vault.ts';
import { environmentSecret, type EnvironmentReader } from './environment.ts';
import { fetchVaultSecret } from './hashicorp-vault.ts';
import type { ManagerCall } from './manager-call.ts';
import { sealedSecret } from './sealed.ts';
import type { RawSecret, SecretSource } from './types.ts';

export function fetchSecret(source: SecretSource, secretPath: string, call: ManagerCall & { environment: EnvironmentReader }): Promise<RawSecret> {
  switch (source.managerType) {
    case 'aws_sm':
      return fetchAwsSecret(source.auth, secretPath, call);
    case 'azure_kv':
      return fetchAzureSecret(source.auth, secretPath, call);
    case 'hashicorp_vault':
      return fetchVaultSecret(source.auth, secretPath, call);
    case 'sealed':
      return Promise.resolve(sealedSecret(source.auth));
    case 'env':
      return Promise.resolve().then(() => environmentSecret(secretPath, call.environment, call.label));
  }
}
