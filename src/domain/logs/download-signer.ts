/** The download signer every node builds the same way, so a URL signed on one node opens on any other. */
import type { SecretCipher } from '../../secrets/cipher.ts';
import { hmacSigner, sealedSigner, type DownloadSigner } from './download-signature.ts';

/** HMAC-SHA256 with `signingKey` when the gateway derives one from its encryption key; sealed tokens otherwise. */
export function downloadSignerFor(secrets: SecretCipher, signingKey?: Buffer): DownloadSigner {
  return signingKey ? hmacSigner(signingKey) : sealedSigner(secrets);
}
