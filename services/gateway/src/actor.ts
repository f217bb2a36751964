// Resolves the caller from a bearer token for the request log; services verify the token themselves.
import type { RequestHandler } from 'express';
import type { AccessTokenVerifier } from '@acct/shared';
import type { Actor } from './request-log';

export function resolveActor(verifier: AccessTokenVerifier): RequestHandler {
  return (req, res, next) => {
    const claims = verifier.verifyHeader(req.get('authorization'));
    if (claims) res.locals.actor = { type: claims.kind, id: claims.sub, role: claims.role } satisfies Actor;
    next();
  };
}
