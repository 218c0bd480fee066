/**
 * AWS Signature Version 4 (Bedrock, SageMaker, STS, Secrets Manager), loaded on first use: a gateway that never calls
 * AWS does not load the smithy signer, @smithy/core and their SHA-256 at start-up (~0.3 MB of the gateway's heap at
 * boot, by a heap snapshot). Every signature is made in an async path anyway.
 */
import type { SignatureV4, SignatureV4Init, SignatureV4CryptoInit } from '@smithy/signature-v4';

export type SignerOptions = Omit<SignatureV4Init & SignatureV4CryptoInit, 'sha256'>;

let loading: Promise<(options: SignerOptions) => SignatureV4> | undefined;

async function load(): Promise<(options: SignerOptions) => SignatureV4> {
  const { SignatureV4: Signer, Sha256 } = await import('./sigv4-smithy.ts');
  return (options) => new Signer({ ...options, sha256: Sha256 });
}

/** A SigV4 signer with the given credentials, region and service (SHA-256 from @aws-crypto). */
export async function sigV4Signer(options: SignerOptions): Promise<SignatureV4> {
  // a failed load is forgotten: the next call tries again
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return (await loading)(options);
}
