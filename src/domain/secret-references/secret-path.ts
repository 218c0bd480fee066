/**
 * secret_path per manager type: a name the manager understands, checked when saved so a typo is a 400 now and not
 * a failed request later.
 * - aws_sm: a secret name or ARN (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_CreateSecret.html#SecretsManager-CreateSecret-request-Name)
 * - azure_kv: a secret name, optionally `/<version>` (https://learn.microsoft.com/azure/key-vault/general/about-keys-secrets-certificates#objects-identifiers-and-versioning)
 * - hashicorp_vault: `<mount>/<path>` of a KV version 2 engine; the gateway reads `<mount>/data/<path>`
 * - env: the name of an environment variable of the gateway, not one of its own settings
 * - sealed: the value is in auth_config; secret_path is free text (empty by default)
 */
import { environmentSecretRefusal } from '../../config/environment-secrets.ts';
import { invalidParam } from '../../core/errors.ts';
import type { ManagerType } from '../../secrets/managers/types.ts';

const AWS_SECRET_ID = /^[A-Za-z0-9/_+=.@:-]{1,2048}$/;
const AZURE_SECRET = /^[0-9A-Za-z-]{1,127}(\/[0-9A-Fa-f]{32})?$/;
const VAULT_SEGMENT = /^[A-Za-z0-9_.@+=:-]+$/;

function refuse(message: string): never {
  throw invalidParam('secret_path', message);
}

export function checkSecretPath(managerType: ManagerType, secretPath: string | undefined): string {
  if (secretPath === undefined || secretPath === '') {
    if (managerType === 'sealed') return '';
    return refuse(`secret_path is required for manager_type ${managerType}.`);
  }
  switch (managerType) {
    case 'aws_sm':
      if (!AWS_SECRET_ID.test(secretPath)) refuse('secret_path must be an AWS secret name or ARN (letters, digits and /_+=.@:-).');
      break;
    case 'azure_kv':
      if (!AZURE_SECRET.test(secretPath)) refuse('secret_path must be a Key Vault secret name (letters, digits and -), optionally followed by /<32-hex version>.');
      break;
    case 'hashicorp_vault': {
      const segments = secretPath.split('/');
      const bad = segments.length < 2 || segments.some((segment) => !VAULT_SEGMENT.test(segment) || segment === '.' || segment === '..');
      if (bad) refuse('secret_path must be <mount>/<path> of a KV version 2 engine, such as secret/team/openai.');
      break;
    }
    case 'env': {
      const refusal = environmentSecretRefusal(secretPath);
      if (refusal !== undefined) refuse(`secret_path must name an environment variable of the gateway: ${refusal}.`);
      break;
    }
    case 'sealed':
      break;
  }
  return secretPath;
}
