/**
 * The key that seals secrets at rest. `GATEWAY_ENCRYPTION_KEY` wins: 32 bytes as 64 hex characters or base64, or
 * any passphrase of at least 32 characters (stretched with HKDF-SHA-256). Without it the key is generated once
 * into `<data dir>/encryption.key` (mode 0600) and read from there on every later start. Nodes that share a
 * database must share the key: with DATABASE_URL set and no key given, the caller is told to warn.
 *
 * Rotation: `GATEWAY_ENCRYPTION_KEYS_PREVIOUS` (comma-separated, each in the same forms) holds keys that only open
 * what they sealed before; the current key seals everything new (secrets/cipher.ts tells them apart by key id).
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const KEY_FILE = 'encryption.key';
const INFO = 'ai-gateway secrets at rest v1';

export interface EncryptionKey {
  key: Buffer;
  /** older keys that still open what they sealed, newest first */
  previous: Buffer[];
  source: 'env' | 'file' | 'generated';
}

function fromText(text: string, what: string): Buffer {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/]{43}=$/.test(value)) return Buffer.from(value, 'base64');
  if (value.length >= 32) return Buffer.from(hkdfSync('sha256', value, Buffer.alloc(0), INFO, 32));
  throw new Error(`${what} must be 32 bytes (64 hex characters or base64) or a passphrase of at least 32 characters`);
}

/** `GATEWAY_ENCRYPTION_KEYS_PREVIOUS`: comma-separated keys; empty entries are ignored, a malformed one stops the start. */
export function parsePreviousKeys(configured: string | undefined): Buffer[] {
  if (configured === undefined) return [];
  const entries = configured.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  return entries.map((entry, index) => fromText(entry, `GATEWAY_ENCRYPTION_KEYS_PREVIOUS entry ${index + 1}`));
}

export function loadEncryptionKey(configured: string | undefined, dataDir: string, previousKeys?: string): EncryptionKey {
  const previous = parsePreviousKeys(previousKeys);
  if (configured !== undefined) return { key: fromText(configured, 'GATEWAY_ENCRYPTION_KEY'), previous, source: 'env' };
  const file = path.join(dataDir, KEY_FILE);
  if (fs.existsSync(file)) return { key: fromText(fs.readFileSync(file, 'utf8'), file), previous, source: 'file' };
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  // `wx`: two processes starting at once cannot both write a key; the loser reads the winner's
  try {
    fs.writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { key: fromText(fs.readFileSync(file, 'utf8'), file), previous, source: 'file' };
    throw error;
  }
  return { key, previous, source: 'generated' };
}
