// Signs access tokens (ES256) with a key object built once at start.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ACCESS_TOKEN_ALGORITHM, AccessTokenVerifier, ConfigError, publicKeyFrom, type AccessClaims } from '@acct/shared';

export class AccessTokenIssuer {
  private readonly privateKey: KeyObject;
  readonly verifier: AccessTokenVerifier;

  constructor(
    privateKeyPem: string,
    private readonly options: { issuer: string; audience: string; ttlSeconds: number },
  ) {
    try {
      this.privateKey = createPrivateKey(privateKeyPem);
    } catch (err) {
      throw new ConfigError(`Invalid configuration: JWT_PRIVATE_KEY: ${(err as Error).message}`);
    }
    this.verifier = new AccessTokenVerifier(publicKeyFrom(privateKeyPem, 'JWT_PRIVATE_KEY'), options.issuer, options.audience);
  }

  sign(claims: AccessClaims): string {
    const { sub, ...rest } = claims;
    return jwt.sign(rest, this.privateKey, {
      algorithm: ACCESS_TOKEN_ALGORITHM,
      subject: sub,
      issuer: this.options.issuer,
      audience: this.options.audience,
      expiresIn: this.options.ttlSeconds,
    });
  }
}
