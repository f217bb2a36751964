// Signs access tokens (ES256) with a key object built once at start, from the PEM configured. During
// a rotation JWT_PRIVATE_KEY holds several keys, oldest first: the last signs, and every one's public
// key verifies (auth's own checks, and the key set the gateway publishes must hold them all).
import { createPrivateKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ACCESS_TOKEN_ALGORITHM, AccessTokenVerifier, configError, pemBlocks, publicKeysFrom, requireSecret, withLowS, type AccessClaims } from '@acct/shared';
import type { AuthConfig } from '../config';
import type { TokenSigner } from '../domain/shared/ports';

/** Reads and checks the signing key; done before any connection so a bad key fails fast. */
export function loadTokenIssuer(config: AuthConfig): AccessTokenIssuer {
  const privateKey = requireSecret(config.JWT_PRIVATE_KEY, 'JWT_PRIVATE_KEY');
  return new AccessTokenIssuer(privateKey, { issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, ttlSeconds: config.sessions.accessTokenTtlSeconds });
}

export class AccessTokenIssuer implements TokenSigner {
  private readonly privateKey: KeyObject;
  readonly verifier: AccessTokenVerifier;

  constructor(
    /** The keys as configured: the OpenID provider signs ID tokens with the same ones. */
    readonly privateKeyPem: string,
    private readonly options: { issuer: string; audience: string; ttlSeconds: number },
  ) {
    const blocks = pemBlocks(privateKeyPem, 'JWT_PRIVATE_KEY');
    try {
      this.privateKey = createPrivateKey(blocks[blocks.length - 1]);
    } catch (err) {
      throw configError('JWT_PRIVATE_KEY', (err as Error).message);
    }
    this.verifier = new AccessTokenVerifier(publicKeysFrom(privateKeyPem, 'JWT_PRIVATE_KEY'), options.issuer, options.audience);
    this.keyId = this.verifier.keySet.keys[blocks.length - 1].kid;
  }

  /** The `kid` every token carries: its key's entry in the published key set. */
  private readonly keyId: string;

  sign(claims: AccessClaims, notAfterMs?: number): string {
    const { sub, ...rest } = claims;
    const lifetime = notAfterMs === undefined ? this.options.ttlSeconds : Math.max(1, Math.min(this.options.ttlSeconds, Math.floor((notAfterMs - Date.now()) / 1000)));
    // One text per token: the verifiers take only the low-S form of the signature.
    return withLowS(
      jwt.sign(rest, this.privateKey, {
      algorithm: ACCESS_TOKEN_ALGORITHM,
      subject: sub,
      issuer: this.options.issuer,
      audience: this.options.audience,
        expiresIn: lifetime,
        keyid: this.keyId,
      }),
    );
  }
}
