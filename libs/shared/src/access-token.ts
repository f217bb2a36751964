// Access tokens: ES256 JWTs signed by auth; every service verifies them the same way, algorithm,
// issuer and audience pinned, with key objects built once. A key setting may hold several PEM keys
// (a rotation: docs/operations.md, "Rotating the signing key"): every one verifies, chosen by the
// token's `kid`, and auth signs with the last.
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { configError, env, requireSecret } from './config';
import { hasLowS } from './ecdsa-low-s';

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

/** The PEM blocks of a key setting, oldest first (a rotation appends the new key). */
export function pemBlocks(configured: string, name: string): string[] {
  const blocks = pemText(configured).match(/-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g) ?? [];
  if (blocks.length === 0) throw configError(name, 'no PEM key in it');
  return blocks;
}

/** Every public key of a setting that holds one or more PEM keys (public, or private to derive them from), oldest first. */
export function publicKeysFrom(configured: string, name = 'JWT_PUBLIC_KEY'): KeyObject[] {
  return pemBlocks(configured, name).map((block) => publicKeyFrom(block, name));
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

/** At most this many verified tokens are remembered (about 600 bytes each: a few MB at most). */
const VERIFIED_TOKENS_KEPT = 5_000;

export class AccessTokenVerifier {
  /** The key set this verifier trusts, as `GET /.well-known/jwks.json` publishes it. */
  readonly keySet: { keys: PublicJwk[] };
  private readonly byKid: Map<string, KeyObject>;
  private readonly only: KeyObject | undefined;
  /**
   * Tokens this verifier found valid, by their exact text, until they expire: a client sends the same
   * token for its whole life, and the ES256 signature is most of a check's cost, paid again by the
   * gateway and by the service on every request. The key set, issuer and audience are fixed for the
   * verifier's life, so a token valid once stays valid until its `exp` (revocation is the feed's
   * question, asked on every request anyway). Only successes are kept; the oldest entry goes first.
   */
  private readonly verified = new Map<string, { claims: AccessClaims; expiresAtMs: number }>();

  /** `publicKeys`: one key, or the keys of a rotation (oldest first); a token names its key by `kid`. */
  constructor(
    publicKeys: KeyObject | KeyObject[],
    private readonly issuer: string,
    private readonly audience: string,
  ) {
    const keys = Array.isArray(publicKeys) ? publicKeys : [publicKeys];
    const jwks = keys.map(publicJwk);
    this.keySet = { keys: jwks };
    this.byKid = new Map(jwks.map((jwk, i) => [jwk.kid, keys[i]]));
    // One key (no rotation under way): no header to read per token; a signature of another key fails anyway.
    this.only = keys.length === 1 ? keys[0] : undefined;
  }

  static fromConfig(config: { JWT_PUBLIC_KEY?: string; JWT_ISSUER: string; JWT_AUDIENCE: string }) {
    return new AccessTokenVerifier(publicKeysFrom(requireSecret(config.JWT_PUBLIC_KEY, 'JWT_PUBLIC_KEY')), config.JWT_ISSUER, config.JWT_AUDIENCE);
  }

  /** The key a token names (`kid`); a token from before keys had ids is tried with the oldest. */
  private keyFor(token: string): KeyObject | undefined {
    if (this.only) return this.only;
    try {
      const header = JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8')) as { kid?: unknown };
      if (header.kid === undefined) return this.byKid.values().next().value;
      return typeof header.kid === 'string' ? this.byKid.get(header.kid) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The claims of a valid token, or undefined for anything else (expired, forged, wrong audience, a key not in the set…). */
  verify(token: string, now = Date.now()): AccessClaims | undefined {
    const known = this.verified.get(token);
    if (known) {
      // As jsonwebtoken judges it: expired from the second `exp` names.
      if (now < known.expiresAtMs) return known.claims;
      this.verified.delete(token);
      return undefined;
    }
    const claims = this.checkSignature(token);
    if (!claims) return undefined;
    if (this.verified.size >= VERIFIED_TOKENS_KEPT) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { claims: claims.claims, expiresAtMs: claims.exp * 1000 });
    return claims.claims;
  }

  private checkSignature(token: string): { claims: AccessClaims; exp: number } | undefined {
    // One text per token: the high-S twin of a signature is refused (ecdsa-low-s.ts).
    if (!hasLowS(token)) return undefined;
    const publicKey = this.keyFor(token);
    if (!publicKey) return undefined;
    try {
      const claims = jwt.verify(token, publicKey, {
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
      // One object for every request that sends this token: no caller may change it.
      return { claims: Object.freeze({ sub, kind, role, sid }), exp };
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
