/**
 * The x-gateway-aws-* settings Bedrock reads: the region (endpoints.ts), the SigV4 credentials (auth.ts) and the
 * S3 bucket of batches (s3.ts).
 */
import type { CloudSettings } from '../contract.ts';

export const bedrockCloudSettings: CloudSettings = {
  headerPrefix: 'x-gateway-aws-',
  settings: [
    // an identifier, shown in every signed request's Authorization header: not a secret
    { key: 'aws-access-key-id', configField: 'aws_access_key_id' },
    { key: 'aws-secret-access-key', configField: 'aws_secret_access_key', secret: true },
    { key: 'aws-session-token', configField: 'aws_session_token', secret: true },
    { key: 'aws-region', configField: 'aws_region' },
    // where batch inputs are stored and outputs written (s3.ts); gateway_options may name another per batch
    { key: 'aws-s3-bucket', configField: 'aws_s3_bucket' },
  ],
};
