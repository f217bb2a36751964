// A new refresh token for the gateway to put in the kind's cookie, for as long as the session's
// policy keeps it; no cache, shared or private, may keep an answer that carries a token.
import type { Response } from 'express';
import { InternalHeaders } from '@acct/shared';

export function sendRefreshToken(res: Response, token: string, maxAgeSeconds: number): Response {
  return res.setHeader(InternalHeaders.setRefreshToken, token).setHeader(InternalHeaders.refreshTokenMaxAge, String(maxAgeSeconds)).setHeader('Cache-Control', 'no-store');
}
