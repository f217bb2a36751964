// Secrets the service must read back (authenticator seeds) are kept sealed with AES-256-GCM under
// MFA_ENCRYPTION_KEY; secrets it only compares (recovery codes) are kept as keyed hashes. A sealed
// value is `v1.<iv>.<tag>.<ciphertext>` (base64url), bound to what it belongs to (associated data),
// so a sealed seed copied onto another account does not open.
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { configError } from '@acct/shared';
import type { Sealer } from '../data-access/mongo-factors';

export class SecretBox implements Sealer {
  // Key objects, made once: on Node 24 every call given raw bytes as a key pays about 11 µs of
  // internal checks that a key object skips (see successorKey in redis-sessions.ts).
  private readonly key: KeyObject;
  private readonly macKey: KeyObject;

  /** `key`: the 32 bytes of MFA_ENCRYPTION_KEY, as the config parsed them. */
  constructor(key: Buffer) {
    if (key.length !== 32) throw configError('MFA_ENCRYPTION_KEY', 'must be 32 bytes, as 64 hex digits or base64 (openssl rand -hex 32)');
    this.key = createSecretKey(key);
    // A separate key for hashes, so no value is ever both encrypted and MACed under one key.
    this.macKey = createSecretKey(createHmac('sha256', key).update('recovery-code-hash').digest());
  }

  seal(plain: string, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(boundTo));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** The plain value; throws when the value was altered, sealed for something else, or under another key. */
  open(sealed: string, boundTo: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url')).setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** A keyed hash for values only ever compared: one who reads the database cannot test guesses offline. */
  hash(value: string): string {
    return createHmac('sha256', this.macKey).update(value).digest('base64url');
  }
}
