/** The x-gateway-aws-* settings Bedrock reads: the region (endpoints.ts) and the SigV4 credentials (auth.ts). */
import type { CloudSettings } from '../contract.ts';

export const bedrockCloudSettings: CloudSettings = {
  headerPrefix: 'x-gateway-aws-',
  settings: [
    // an identifier, shown in every signed request's Authorization header: not a secret
    { key: 'aws-access-key-id', configField: 'aws_access_key_id' },
    { key: 'aws-secret-access-key', configField: 'aws_secret_access_key', secret: true },
    { key: 'aws-session-token', configField: 'aws_session_token', secret: true },
    { key: 'aws-region', configField: 'aws_region' },
  ],
};
