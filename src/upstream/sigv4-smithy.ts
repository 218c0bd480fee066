/**
 * The AWS signer's packages, imported statically here so that sigv4.ts can load them lazily through this module: a
 * dynamic import() of these CommonJS packages would keep only their `default` export in the bundle (scripts/build.mjs).
 */
export { SignatureV4 } from '@smithy/signature-v4';
export { Sha256 } from '@aws-crypto/sha256-js';
