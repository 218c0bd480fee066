/** Secrets at rest: the AES-256-GCM cipher, where its key comes from, and the credentials of a saved config. */
import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createSecretCipher, encryptionKeyId, isSealed } from '../src/secrets/cipher.ts';
import { createConfigSecrets, maskConfigSecrets, openConfigSecrets, sealConfigSecrets } from '../src/secrets/config-secrets.ts';
import { KEY_FILE, loadEncryptionKey, parsePreviousKeys } from '../src/secrets/encryption-key.ts';

const cipher = createSecretCipher(Buffer.alloc(32, 7));

test('a sealed secret opens to itself, never contains it, and differs every time', () => {
  const first = cipher.seal('sk-live-123');
  const second = cipher.seal('sk-live-123');
  assert.ok(isSealed(first));
  assert.notEqual(first, second, 'a fresh IV per value');
  assert.doesNotMatch(first, /sk-live/);
  assert.equal(cipher.open(first), 'sk-live-123');
  assert.equal(cipher.open(cipher.seal('')), '');
  assert.equal(cipher.open(cipher.seal('ünïcødé ✓')), 'ünïcødé ✓');
});

test('a value altered at rest, or sealed with another key, does not open', () => {
  const sealed = cipher.seal('sk-live-123');
  const prefix = `enc:v2:${cipher.keyId}:`;
  assert.ok(sealed.startsWith(prefix), sealed);
  const raw = Buffer.from(sealed.slice(prefix.length), 'base64');
  raw[raw.length - 1] = raw[raw.length - 1]! ^ 1;
  assert.throws(() => cipher.open(`${prefix}${raw.toString('base64')}`));
  assert.throws(() => createSecretCipher(Buffer.alloc(32, 8)).open(sealed), new RegExp(`sealed with key ${cipher.keyId}`));
  assert.throws(() => cipher.open(`${prefix}AAAA`), /too short/);
  assert.throws(() => cipher.open('enc:v1:AAAA'), /too short/);
  assert.throws(() => cipher.open('enc:v2:nothex!!:AAAA'), /key id/);
  assert.throws(() => cipher.open('plain'), /not a sealed secret/);
  assert.throws(() => createSecretCipher(Buffer.alloc(16)), RangeError);
  assert.throws(() => createSecretCipher(Buffer.alloc(32, 7), [Buffer.alloc(8)]), RangeError, 'a previous key is checked too');
});

/** A value as versions before key ids sealed it: `enc:v1:<base64(iv | tag | ciphertext)>`, no key id. */
function legacySeal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const gcm = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([gcm.update(plaintext, 'utf8'), gcm.final()]);
  return `enc:v1:${Buffer.concat([iv, gcm.getAuthTag(), body]).toString('base64')}`;
}

test('key rotation: the current key seals with its id; previous keys still open what they sealed; nothing else opens', () => {
  const oldKey = Buffer.alloc(32, 1);
  const newKey = Buffer.alloc(32, 2);
  const before = createSecretCipher(oldKey);
  const sealedBefore = before.seal('sk-before-rotation');
  const rotated = createSecretCipher(newKey, [oldKey]);
  assert.notEqual(rotated.keyId, before.keyId);
  assert.equal(rotated.keyId, encryptionKeyId(newKey));
  assert.match(rotated.keyId, /^[0-9a-f]{8}$/);
  assert.doesNotMatch(rotated.keyId, new RegExp(newKey.toString('hex').slice(0, 8)), 'the id is not a piece of the key');
  assert.equal(rotated.open(sealedBefore), 'sk-before-rotation', 'a value sealed with the previous key still opens');
  const sealedAfter = rotated.seal('sk-after-rotation');
  assert.ok(sealedAfter.startsWith(`enc:v2:${rotated.keyId}:`), 'new values use the new key');
  assert.throws(() => before.open(sealedAfter), /does not hold/, 'the old key alone cannot open a new value');
  assert.throws(() => createSecretCipher(newKey).open(sealedBefore), /does not hold/, 'dropping the previous key retires its values');
  // re-sealing moves a value to the current key, so the previous key can then be dropped
  const moved = rotated.reseal(sealedBefore);
  assert.ok(moved.startsWith(`enc:v2:${rotated.keyId}:`));
  assert.equal(createSecretCipher(newKey).open(moved), 'sk-before-rotation');
  assert.equal(rotated.reseal(sealedAfter), sealedAfter, 'a value of the current key is left as it is');
});

test('values sealed before key ids existed (enc:v1:, saved configs of earlier versions) keep opening, with any held key', () => {
  const key = Buffer.alloc(32, 7);
  const legacy = legacySeal(key, 'sk-legacy');
  assert.ok(isSealed(legacy));
  assert.equal(cipher.open(legacy), 'sk-legacy', 'the same key opens it');
  assert.equal(createSecretCipher(Buffer.alloc(32, 9), [key]).open(legacy), 'sk-legacy', 'and so does a cipher holding it as a previous key');
  assert.throws(() => createSecretCipher(Buffer.alloc(32, 9)).open(legacy));
  // a saved config stored by an earlier version: its credentials open as they did, and are not sealed twice
  const stored = { provider: 'openai', api_key: legacy, targets: [{ provider: 'bedrock', aws_secret_access_key: legacySeal(key, 'aws-legacy') }] };
  assert.deepEqual(openConfigSecrets(stored, cipher), { provider: 'openai', api_key: 'sk-legacy', targets: [{ provider: 'bedrock', aws_secret_access_key: 'aws-legacy' }] });
  assert.deepEqual(sealConfigSecrets(stored, cipher), stored);
  assert.ok(cipher.reseal(legacy).startsWith(`enc:v2:${cipher.keyId}:`));
});

test('GATEWAY_ENCRYPTION_KEYS_PREVIOUS: comma-separated keys in the same forms; a malformed entry stops the start', () => {
  const hex = 'cd'.repeat(32);
  const base64 = Buffer.alloc(32, 4).toString('base64');
  assert.deepEqual(parsePreviousKeys(undefined), []);
  assert.deepEqual(parsePreviousKeys(` ${hex} ,, ${base64}`), [Buffer.from(hex, 'hex'), Buffer.alloc(32, 4)]);
  assert.deepEqual(loadEncryptionKey('ab'.repeat(32), '/nonexistent', hex).previous, [Buffer.from(hex, 'hex')]);
  assert.deepEqual(loadEncryptionKey('ab'.repeat(32), '/nonexistent').previous, []);
  assert.throws(() => parsePreviousKeys(`${hex},short`), /GATEWAY_ENCRYPTION_KEYS_PREVIOUS entry 2/);
});

test('the key: from GATEWAY_ENCRYPTION_KEY (hex, base64 or passphrase), else generated once into the data dir', () => {
  const hex = 'ab'.repeat(32);
  assert.deepEqual(loadEncryptionKey(hex, '/nonexistent').key, Buffer.from(hex, 'hex'));
  const base64 = Buffer.alloc(32, 3).toString('base64');
  assert.deepEqual(loadEncryptionKey(base64, '/nonexistent').key, Buffer.alloc(32, 3));
  const phrase = loadEncryptionKey('a long passphrase of more than 32 characters', '/nonexistent');
  assert.equal(phrase.key.length, 32);
  assert.deepEqual(phrase.key, loadEncryptionKey('a long passphrase of more than 32 characters', '/x').key, 'derived the same way every time');
  assert.throws(() => loadEncryptionKey('short', '/nonexistent'), /GATEWAY_ENCRYPTION_KEY/);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-key-'));
  try {
    const generated = loadEncryptionKey(undefined, dir);
    assert.equal(generated.source, 'generated');
    assert.equal(fs.statSync(path.join(dir, KEY_FILE)).mode & 0o777, 0o600);
    const again = loadEncryptionKey(undefined, dir);
    assert.equal(again.source, 'file');
    assert.deepEqual(again.key, generated.key, 'a restart reads the same key');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a config\'s credentials are sealed at every depth, opened for use and masked for display; request params are not touched', () => {
  const config = {
    strategy: { mode: 'fallback' },
    api_key: 'sk-root',
    targets: [
      { provider: 'bedrock', aws_access_key_id: 'AKIA1', aws_secret_access_key: 'aws-secret', aws_session_token: 'aws-token', override_params: { api_key: 'a request param' } },
      { provider: 'vertex-ai', vertex_service_account_json: '{"private_key":"pk"}', cache: { mode: 'semantic', embedding: { provider: 'openai', model: 'e', api_key: 'sk-embed' } } },
    ],
    output_guardrails: [{ 'default.webhook': { webhookURL: 'https://hooks.example/check', headers: { Authorization: 'Bearer hook-secret' } } }],
  };
  const sealed = sealConfigSecrets(config, cipher);
  const text = JSON.stringify(sealed);
  for (const secret of ['sk-root', 'aws-secret', 'aws-token', 'private_key', 'sk-embed', 'hook-secret']) assert.doesNotMatch(text, new RegExp(secret));
  assert.equal(sealed.targets[0]!.aws_access_key_id, 'AKIA1', 'an access key id is an identifier, not a secret');
  assert.equal(sealed.targets[0]!.override_params.api_key, 'a request param');
  assert.deepEqual(sealConfigSecrets(sealed, cipher), sealed, 'sealing twice changes nothing');
  assert.deepEqual(openConfigSecrets(sealed, cipher), config);
  const masked = maskConfigSecrets(sealed);
  assert.equal(masked.api_key, '********');
  assert.equal(masked.targets[1]!.cache!.embedding.api_key, '********');
  assert.equal(masked.output_guardrails[0]!['default.webhook']!.headers.Authorization, '********');
});

test('a cloud field is a credential when its adapter declares it secret, whatever its name', () => {
  const secrets = createConfigSecrets([
    { headerPrefix: 'x-gateway-foo-', settings: [{ key: 'foo-blob', configField: 'foo_blob', secret: true }, { key: 'foo-region', configField: 'foo_region' }] },
  ]);
  const config = { provider: 'p', foo_blob: 'blob-secret', foo_region: 'r', cache: { mode: 'semantic', embedding: { provider: 'p', model: 'm', foo_blob: 'embed-secret' } } };
  const sealed = secrets.seal(config, cipher);
  assert.doesNotMatch(JSON.stringify(sealed), /blob-secret|embed-secret/);
  assert.equal(sealed.foo_region, 'r', 'a setting not declared secret is left as written');
  assert.deepEqual(secrets.open(sealed, cipher), config);
  assert.equal(secrets.mask(sealed).foo_blob, '********');
  assert.equal(secrets.maskedPath(secrets.mask(sealed)), 'config.foo_blob');
  // the same field without the declaration: its name says nothing, so it is not a credential
  assert.equal(createConfigSecrets([]).seal(config, cipher).foo_blob, 'blob-secret');
});
