/** The x-gateway-vertex-* settings Vertex AI reads: where (endpoints.ts) and, optionally, as whom (auth.ts). */
import type { CloudSettings } from '../contract.ts';

export const vertexCloudSettings: CloudSettings = {
  headerPrefix: 'x-gateway-vertex-',
  settings: [
    { key: 'vertex-project-id', configField: 'vertex_project_id' },
    { key: 'vertex-region', configField: 'vertex_region' },
    // a whole key file, private key included
    { key: 'vertex-service-account-json', configField: 'vertex_service_account_json', secret: true },
  ],
};
