/** A local JWKS server on 127.0.0.1 with RS256 keys the test can rotate, and a token signer. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload, type CryptoKey } from 'jose';

export interface JwksServer {
  url: string;
  fetches: number;
  sign(claims: JWTPayload, options?: { kid?: string; expiresIn?: string | number; key?: CryptoKey; issuer?: string; audience?: string }): Promise<string>;
  /** adds a new key (and kid) to the set; returns its kid */
  rotate(): Promise<string>;
  close(): Promise<void>;
}

export async function startJwksServer(options: { issuer: string; audience: string }): Promise<JwksServer> {
  const keys: Array<{ kid: string; privateKey: CryptoKey; jwk: Record<string, unknown> }> = [];
  async function addKey(): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    const kid = `key-${keys.length + 1}`;
    keys.push({ kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } });
    return kid;
  }
  await addKey();
  const state = { fetches: 0 };
  const server = http.createServer((_req, res) => {
    state.fetches += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: keys.map((key) => key.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    get fetches() {
      return state.fetches;
    },
    async sign(claims, signOptions = {}) {
      const key = keys.find((candidate) => candidate.kid === (signOptions.kid ?? keys.at(-1)!.kid)) ?? keys.at(-1)!;
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: signOptions.kid ?? key.kid })
        .setIssuedAt()
        .setIssuer(signOptions.issuer ?? options.issuer)
        .setAudience(signOptions.audience ?? options.audience)
        .setExpirationTime(signOptions.expiresIn ?? '10m')
        .sign(signOptions.key ?? key.privateKey);
    },
    rotate: addKey,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
