// Reads what the gateway resolved (client IP, request id) and the caller's verified access token.
import type { Request } from 'express';
import { InternalHeaders, type AccessTokenVerifier } from '@acct/shared';
import type { RequestContext } from '../../domain/deps';

export function requestContext(req: Request, verifier: AccessTokenVerifier): RequestContext {
  const ip = req.get(InternalHeaders.clientIp) ?? req.socket.remoteAddress ?? 'unknown';
  return {
    ip,
    requestId: req.get(InternalHeaders.requestId),
    actor: verifier.verifyHeader(req.get('authorization')),
  };
}
