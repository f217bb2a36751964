// Reads what the gateway resolved (client IP, request id); the caller's access token is verified
// only by the routes that use it.
import type { Request } from 'express';
import { InternalHeaders, addressBudget, canonicalAddress, type AccessTokenVerifier } from '@acct/shared';
import type { RequestContext } from '../../domain/ports';

export function requestContext(req: Request): RequestContext {
  const ip = canonicalAddress(req.get(InternalHeaders.clientIp)) ?? canonicalAddress(req.socket.remoteAddress) ?? 'unknown';
  return { ip, budget: addressBudget(ip), requestId: req.get(InternalHeaders.requestId), fromBrowserPage: req.get('origin') !== undefined };
}

/** The context with a signal that tells when the client went away: for routes that do slow password work. */
export function requestContextWithSignal(req: Request): RequestContext {
  return { ...requestContext(req), signal: clientGone(req) };
}

/** Aborts when the connection closes before the answer was sent (the gateway gave up, or its client did). */
function clientGone(req: Request): AbortSignal | undefined {
  const res = req.res;
  if (!res) return undefined;
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** The context with the verified caller, for a route whose answer depends on who asks. */
export function requestContextWithActor(req: Request, verifier: AccessTokenVerifier): RequestContext {
  return { ...requestContext(req), actor: verifier.verifyHeader(req.get('authorization')) };
}
