// The handler behind every allow-listed route: build the upstream request from an allow-list of
// headers (so client-sent identity headers never pass), move refresh tokens between the kind's
// cookie and internal headers, and stream the answer back.
import type http from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import { AppError, InternalHeaders } from '@acct/shared';
import { clearRefreshCookie, refreshCookieName, setRefreshCookie } from './refresh-cookie';
import type { RouteSpec } from './routes';
import type { UpstreamClient } from './upstream';

const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'authorization', 'user-agent', 'if-none-match', 'if-modified-since'];
const RETURNED_RESPONSE_HEADERS = ['content-type', 'content-length', 'retry-after', 'cache-control', 'etag', 'last-modified', 'expires', 'vary', 'content-disposition'];

export interface ProxyOptions {
  production: boolean;
  uploadLimitBytes: number;
}

export function proxyTo(route: RouteSpec, upstream: UpstreamClient, options: ProxyOptions): RequestHandler {
  return async (req, res) => {
    const headers = forwardedHeaders(req, res, route);
    let body: Buffer | Transform | undefined;
    if (route.body === 'json' && req.body !== undefined) {
      body = Buffer.from(JSON.stringify(req.body));
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(body.length);
    } else if (route.body === 'stream' && req.headers['content-type']) {
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > options.uploadLimitBytes) throw new AppError('payload_too_large', 413, 'Request body too large');
      headers['content-type'] = req.headers['content-type'];
      if (req.headers['content-length']) headers['content-length'] = req.headers['content-length'];
      else headers['transfer-encoding'] = 'chunked';
      body = req.pipe(byteCap(options.uploadLimitBytes));
    }
    const answer = await upstream.request(req.method, req.originalUrl, headers, body);
    relayAnswer(answer, res, route, options.production);
  };
}

function forwardedHeaders(req: Request, res: Response, route: RouteSpec): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  headers[InternalHeaders.clientIp] = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  headers[InternalHeaders.requestId] = res.locals.requestId as string;
  if (route.readsCookie && route.cookieKind) {
    const token = (req.cookies as Record<string, string> | undefined)?.[refreshCookieName(route.cookieKind)];
    if (typeof token === 'string' && token) headers[InternalHeaders.refreshToken] = token;
  }
  return headers;
}

function relayAnswer(answer: { status: number; headers: http.IncomingHttpHeaders; body: http.IncomingMessage }, res: Response, route: RouteSpec, production: boolean): void {
  if (route.cookieKind) {
    const token = answer.headers[InternalHeaders.setRefreshToken];
    if (typeof token === 'string' && token) setRefreshCookie(res, route.cookieKind, token, production);
    else if (answer.headers[InternalHeaders.clearRefreshToken]) clearRefreshCookie(res, route.cookieKind, production);
  }
  for (const name of RETURNED_RESPONSE_HEADERS) {
    const value = answer.headers[name];
    if (value !== undefined) res.setHeader(name, value);
  }
  res.status(answer.status);
  answer.body.pipe(res);
  answer.body.once('error', () => res.destroy());
}

/** Errors the stream once more than `limit` bytes went through, which aborts the upstream request. */
function byteCap(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > limit) return callback(new AppError('payload_too_large', 413, 'Request body too large'));
      callback(null, chunk);
    },
  });
}
