// Reads what the gateway resolved (client IP, request id); the caller's access token is verified
// only by the routes that use it.
import type { Request } from 'express';
import { InternalHeaders, addressBudget, isLanguageTag, canonicalAddress, type AccessClaims, type AccessTokenVerifier } from '@acct/shared';
import type { RequestContext } from '../../domain/ports';

export function requestContext(req: Request): RequestContext {
  const ip = canonicalAddress(req.get(InternalHeaders.clientIp)) ?? canonicalAddress(req.socket.remoteAddress) ?? 'unknown';
  const userAgent = req.get('user-agent');
  const trustedBrowser = req.get(InternalHeaders.trustedBrowser);
  const language = req.get(InternalHeaders.language);
  return {
    ip,
    budget: addressBudget(ip),
    requestId: req.get(InternalHeaders.requestId),
    fromBrowserPage: req.get('origin') !== undefined,
    ...(userAgent ? { userAgent: userAgent.slice(0, 200) } : {}),
    ...(trustedBrowser ? { trustedBrowser } : {}),
    ...(isLanguageTag(language) ? { language } : {}),
  };
}

/**
 * The context (`base`, by default the plain one) with a signal that tells when the answer is no longer
 * awaited: the client went away, or the gateway's deadline passed. For routes that do slow password
 * work and then commit: they drop the work, and commit nothing (domain/shared/request-deadline.ts).
 */
export function requestContextWithSignal(req: Request, base: RequestContext = requestContext(req)): RequestContext {
  const gone = clientGone(req);
  const deadline = gatewayDeadline(req);
  const signal = gone && deadline ? AbortSignal.any([gone, deadline]) : (gone ?? deadline);
  return { ...base, signal };
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

/** A margin for the answer's way back: past the budget less this, the gateway may have answered 504 already. */
const DEADLINE_MARGIN_MS = 250;

/** Aborts when the gateway stops waiting (its budget, sent as x-request-budget-ms, less the way back); none without one. */
function gatewayDeadline(req: Request): AbortSignal | undefined {
  const budget = Number(req.get(InternalHeaders.requestBudget));
  if (!Number.isSafeInteger(budget) || budget < 1 || budget > 3_600_000) return undefined;
  return AbortSignal.timeout(Math.max(1, budget - DEADLINE_MARGIN_MS));
}

/** The context with the caller's token verified here, for an open route whose answer depends on who asks (admin registration). */
export function requestContextWithActor(req: Request, verifier: AccessTokenVerifier): RequestContext {
  return { ...requestContext(req), actor: verifier.verifyHeader(req.get('authorization')) };
}

/** The context with the caller the dispatcher's guard already verified, on a session route. */
export function requestContextOf(req: Request, actor: AccessClaims): RequestContext {
  return { ...requestContext(req), actor };
}
