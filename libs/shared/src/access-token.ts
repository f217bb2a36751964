// Access tokens: ES256 JWTs signed by auth; every service verifies them the same way, algorithm,
// issuer and audience pinned, with key objects built once.
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { configError, env, requireSecret } from './config';

export const ACCESS_TOKEN_ALGORITHM = 'ES256' as const;
export type AccountKind = 'admin' | 'user';
/** Both kinds, admins first (as the routes are listed). */
export const ACCOUNT_KINDS: readonly AccountKind[] = ['admin', 'user'];
/** `Admin` or `User`, as log messages and model names begin. */
export const kindLabel = (kind: AccountKind): 'Admin' | 'User' => (kind === 'admin' ? 'Admin' : 'User');

export interface AccessClaims {
  sub: string;
  kind: AccountKind;
  role: string;
  sid: string;
}

/** The config variables of whoever verifies tokens; resolve the key pair with `readSecrets('JWT_PUBLIC_KEY')`. */
export const accessTokenVerifyEnv = {
  ...env.secret('JWT_PUBLIC_KEY'),
  JWT_ISSUER: env.string('account-service'),
  JWT_AUDIENCE: env.string('account-api'),
};

/** A PEM as configured: inline values may carry `\n` escapes, as one line of an env file holds a key. */
export const pemText = (value: string): string => value.replace(/\\n/g, '\n');

export function publicKeyFrom(configured: string, name = 'JWT_PUBLIC_KEY'): KeyObject {
  const pem = pemText(configured);
  try {
    const key = pem.includes('PRIVATE KEY') ? createPublicKey(createPrivateKey(pem)) : createPublicKey(pem);
    if (key.asymmetricKeyType !== 'ec') throw new Error('not an EC (P-256) key');
    return key;
  } catch (err) {
    throw configError(name, (err as Error).message);
  }
}

/** A public key as a key set publishes it (RFC 7517), with the `kid` every token it verifies carries. */
export interface PublicJwk {
  kty: 'EC';
  crv: string;
  x: string;
  y: string;
  kid: string;
  alg: typeof ACCESS_TOKEN_ALGORITHM;
  use: 'sig';
}

/** The key's JWK, its `kid` being its RFC 7638 thumbprint (SHA-256 of its required members in order, base64url). */
export function publicJwk(publicKey: KeyObject): PublicJwk {
  const { crv, kty, x, y } = publicKey.export({ format: 'jwk' }) as { crv: string; kty: 'EC'; x: string; y: string };
  const kid = createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
  return { kty, crv, x, y, kid, alg: ACCESS_TOKEN_ALGORITHM, use: 'sig' };
}

export class AccessTokenVerifier {
  /** The key set this verifier trusts, as `GET /.well-known/jwks.json` publishes it. */
  readonly keySet: { keys: PublicJwk[] };

  constructor(
    private readonly publicKey: KeyObject,
    private readonly issuer: string,
    private readonly audience: string,
  ) {
    this.keySet = { keys: [publicJwk(publicKey)] };
  }

  static fromConfig(config: { JWT_PUBLIC_KEY?: string; JWT_ISSUER: string; JWT_AUDIENCE: string }) {
    return new AccessTokenVerifier(publicKeyFrom(requireSecret(config.JWT_PUBLIC_KEY, 'JWT_PUBLIC_KEY')), config.JWT_ISSUER, config.JWT_AUDIENCE);
  }

  /** The claims of a valid token, or undefined for anything else (expired, forged, wrong audience…). */
  verify(token: string): AccessClaims | undefined {
    try {
      const claims = jwt.verify(token, this.publicKey, {
        algorithms: [ACCESS_TOKEN_ALGORITHM],
        issuer: this.issuer,
        audience: this.audience,
      });
      if (typeof claims !== 'object' || claims === null) return undefined;
      const { sub, kind, role, sid, exp } = claims as Record<string, unknown>;
      // jsonwebtoken checks `exp` only when present: a token without one would never expire.
      if (typeof exp !== 'number') return undefined;
      if (typeof sub !== 'string' || (kind !== 'admin' && kind !== 'user') || typeof role !== 'string' || typeof sid !== 'string') {
        return undefined;
      }
      return { sub, kind, role, sid };
    } catch {
      return undefined;
    }
  }

  /** Reads `Authorization: Bearer <token>`; the scheme in any letter case (RFC 7235 §2.1). */
  verifyHeader(header: string | undefined): AccessClaims | undefined {
    if (!header) return undefined;
    const match = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i.exec(header.trim());
    return match ? this.verify(match[1]) : undefined;
  }
}
