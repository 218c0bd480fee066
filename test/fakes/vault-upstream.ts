/**
 * A fake HashiCorp Vault on 127.0.0.1 with a KV version 2 engine and the AppRole auth method:
 * - `GET /v1/{mount}/data/{path}` (https://developer.hashicorp.com/vault/api-docs/secret/kv/kv-v2#read-secret-version)
 *   with `X-Vault-Token`; answers `{ data: { data, metadata } }`, or `{ errors: [...] }` (403 permission denied,
 *   404 with an empty list);
 * - `POST /v1/auth/approle/login` (https://developer.hashicorp.com/vault/api-docs/auth/approle#login-with-approle)
 *   with `{ role_id, secret_id }`; answers `{ auth: { client_token, lease_duration, ... } }`, or 400
 *   `invalid role or secret ID`.
 * With a namespace set, every request must carry it in `X-Vault-Namespace` (Vault Enterprise), else 403.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface VaultRecordedRequest {
  method: string;
  path: string;
  token: string | undefined;
  namespace: string | undefined;
  body: unknown;
}

export interface FakeVault {
  /** http://127.0.0.1:<port>: the auth_config's vault_addr */
  address: string;
  requests: VaultRecordedRequest[];
  /** `<mount>/<path>` -> the KV map */
  secrets: Map<string, Record<string, unknown>>;
  /** tokens that may read (the root token, and the ones AppRole logins issued) */
  tokens: Set<string>;
  close(): Promise<void>;
}

export interface FakeVaultOptions {
  rootToken: string;
  appRole?: { roleId: string; secretId: string };
  namespace?: string;
  /** KV v2 mounts; `secret` by default */
  mounts?: string[];
}

export async function startFakeVault(options: FakeVaultOptions): Promise<FakeVault> {
  const requests: VaultRecordedRequest[] = [];
  const secrets = new Map<string, Record<string, unknown>>();
  const tokens = new Set([options.rootToken]);
  const mounts = options.mounts ?? ['secret'];
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        response.end(JSON.stringify(body));
      };
      const url = new URL(request.url ?? '/', 'http://fake');
      const token = request.headers['x-vault-token'] as string | undefined;
      const namespace = request.headers['x-vault-namespace'] as string | undefined;
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      requests.push({ method: request.method ?? '', path: url.pathname, token, namespace, body });
      if (options.namespace !== undefined && namespace !== options.namespace) return send(403, { errors: ['permission denied'] });
      if (request.method === 'POST' && url.pathname === '/v1/auth/approle/login') {
        const login = body as { role_id?: unknown; secret_id?: unknown } | undefined;
        if (!options.appRole || login?.role_id !== options.appRole.roleId || login?.secret_id !== options.appRole.secretId) {
          return send(400, { errors: ['invalid role or secret ID'] });
        }
        const issued = `hvs.${randomBytes(12).toString('hex')}`;
        tokens.add(issued);
        return send(200, {
          request_id: 'fake', lease_id: '', renewable: false, lease_duration: 0, data: null, wrap_info: null, warnings: null,
          auth: { client_token: issued, accessor: 'fake-accessor', policies: ['default'], token_policies: ['default'], lease_duration: 1200, renewable: true },
        });
      }
      const read = /^\/v1\/([^/]+)\/data\/(.+)$/.exec(url.pathname);
      if (request.method === 'GET' && read) {
        if (token === undefined || !tokens.has(token)) return send(403, { errors: ['permission denied'] });
        const [, mount = '', path = ''] = read;
        if (!mounts.includes(mount)) return send(404, { errors: [`no handler for route "${mount}/data/${path}". route entry not found.`] });
        const data = secrets.get(`${mount}/${decodeURIComponent(path)}`);
        if (!data) return send(404, { errors: [] });
        return send(200, {
          request_id: 'fake', lease_id: '', renewable: false, lease_duration: 0,
          data: { data, metadata: { created_time: '2018-03-22T02:24:06.945319214Z', deletion_time: '', destroyed: false, version: 1 } },
          wrap_info: null, warnings: null, auth: null,
        });
      }
      return send(404, { errors: [] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `http://127.0.0.1:${port}`,
    requests,
    secrets,
    tokens,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
