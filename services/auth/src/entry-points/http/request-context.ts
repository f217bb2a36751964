// Reads what the gateway resolved (client IP, request id); the caller's access token is verified
// only by the routes that use it.
import type { Request } from 'express';
import { InternalHeaders, addressBudget, canonicalAddress, type AccessTokenVerifier } from '@acct/shared';
import type { RequestContext } from '../../domain/ports';

export function requestContext(req: Request): RequestContext {
  const ip = canonicalAddress(req.get(InternalHeaders.clientIp)) ?? canonicalAddress(req.socket.remoteAddress) ?? 'unknown';
  return { ip, budget: addressBudget(ip), requestId: req.get(InternalHeaders.requestId) };
}

/** The context with the verified caller, for a route whose answer depends on who asks. */
export function requestContextWithActor(req: Request, verifier: AccessTokenVerifier): RequestContext {
  return { ...requestContext(req), actor: verifier.verifyHeader(req.get('authorization')) };
}
