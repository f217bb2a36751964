// Opaque tokens of the form `<id>.<secret>`: the id finds the Redis key, only the secret's hash is stored.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export interface OpaqueToken {
  id: string;
  secret: string;
  value: string;
}

const ID = /^[A-Za-z0-9_-]{22}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** 128-bit id, 256-bit secret, both base64url. */
export function mintToken(id = randomBytes(16).toString('base64url')): OpaqueToken {
  const secret = randomBytes(32).toString('base64url');
  return { id, secret, value: `${id}.${secret}` };
}

export function parseToken(value: unknown): OpaqueToken | undefined {
  if (typeof value !== 'string' || value.length > 100) return undefined;
  const dot = value.indexOf('.');
  const id = value.slice(0, dot);
  const secret = value.slice(dot + 1);
  return dot > 0 && ID.test(id) && SECRET.test(secret) ? { id, secret, value } : undefined;
}

export const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/** Compares two secrets in constant time: both are hashed first, so neither content nor length shows in the timing. */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
