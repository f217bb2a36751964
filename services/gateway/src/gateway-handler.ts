// The gateway's request listener, on node:http alone. Each request is admitted (request id, client
// address, actor, its one log record), then takes one of five named ways: unmatched (a hosted page,
// a CORS preflight or the 404), cached (a public answer from memory), refused by a guard (a cookie
// route asked from another site), local (the key set, the revocation feed), or forwarded to its
// service with a byte cap; cookies cross in one step each way (refresh-cookie-bridge.ts). Express
// (with helmet, the router walk and JSON re-serialisation) cost several times what a proxy needs.
import type http from 'node:http';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { edgeSpan, type EdgeSpan } from '@acct/shared/tracing';
import {
  InternalHeaders,
  NOT_FOUND_ENVELOPE,
  assertSessionLive,
  errors,
  toErrorAnswer,
  type AccessTokenVerifier,
  type HttpMetrics,
  type Logger,
  type RevocationCheck,
} from '@acct/shared';
import type { GatewayConfig } from './config';
import { clientAddress, compileTrust } from './client-ip';
import { Cors } from './cors';
import { CrossSiteGuard } from './cross-site';
import { GatewayErrors } from './errors';
import { cookiesFromService, cookiesToService } from './refresh-cookie-bridge';
import { elapsedMs, logRequest, resolveRequestId, type Actor } from './request-log';
import type { Pages } from './pages';
import { requestLanguage } from './language';
import type { Languages } from '@acct/shared/languages';
import { PublicCache, type Fill } from './public-cache';
import type { RevocationEvents } from './revocation-events';
import { ROUTES, RouteMatcher, actsOnSession, pathOf, type RouteSpec, type Upstream } from '@acct/shared/routes';
import { helmetHeaders } from './security-headers';
import { OPENID_REQUEST_HEADERS, OPENID_RESPONSE_HEADERS, OPENID_ROUTE, isOpenIdPath, providerCookies, providerSetCookies } from './openid-passthrough';
import type { UpstreamAnswer, UpstreamClient } from './upstream';

export interface GatewayDeps {
  config: GatewayConfig;
  /** Service logger (start-up, errors). */
  logger: Logger;
  /** The request log: one record per request, spec fields only. */
  requestLogger: Logger;
  verifier: AccessTokenVerifier;
  /** Which sessions ended, from memory (the revocation feed). */
  revocations: RevocationCheck;
  upstreams: Record<Exclude<Upstream, 'local'>, UpstreamClient>;
  /** Requests by route template, method and status (the health port's /metrics). */
  http?: HttpMetrics;
  /** The hosted pages and their assets, when built and on. */
  pages?: Pages;
  /** The languages offered: each request's is told to the services (a mail it causes speaks it). */
  languages?: Languages;
  /** The revocation feed as server-sent events, for back ends holding a feed token. */
  revocationEvents?: RevocationEvents;
}

// `origin` tells auth that a browser page asked (a missing refresh cookie then gets a hint).
const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'authorization', 'user-agent', 'if-none-match', 'if-modified-since', 'origin'];
// `location`: the redirects of a sign-in with an identity provider (to it, and back to the app).
const RETURNED_RESPONSE_HEADERS = ['location', 'content-type', 'content-length', 'retry-after', 'cache-control', 'etag', 'last-modified', 'expires', 'vary', 'content-disposition'];
// A string: Node writes it with the head in one write, where a Buffer is a second chunk of a writev.
const NOT_FOUND = JSON.stringify(NOT_FOUND_ENVELOPE);
/** A service's answer up to this size, declared, is sent on whole; a larger one streams (an avatar, an export). */
const WHOLE_ANSWER_BYTES = 16 * 1024;
/** The revocation feed for other back ends (answered from the gateway's own feed). */
const REVOCATIONS_PATH = pathOf('revocationFeed');
/** The request log's status for a request whose client went away before its answer was sent. */
const CLIENT_CLOSED_REQUEST = 499;

export function createGatewayHandler(deps: GatewayDeps): http.RequestListener {
  const { config } = deps;
  const matcher = new RouteMatcher(ROUTES);
  const cors = new Cors(config.CORS_ORIGINS, matcher);
  // Headers go out in one writeHead with a flat list: per-call setHeader validation was a
  // visible share of a 404's cost.
  const security = helmetHeaders().flat();
  const notFoundHeaders = [...security, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(NOT_FOUND))];
  const trust = compileTrust(config.TRUST_PROXY);
  const crossSite = new CrossSiteGuard(config.CORS_ORIGINS, { publicUrl: config.PUBLIC_URL, trust: trust as (addr: string, i: number) => boolean });
  const production = config.NODE_ENV === 'production';
  const jsonLimit = config.BODY_LIMIT;
  // The key set, built once: a key change is a restart with the new key (docs/operations.md).
  const keySet = Buffer.from(JSON.stringify(deps.verifier.keySet));
  const keySetHeaders = ['Content-Type', 'application/jwk-set+json', 'Content-Length', String(keySet.length), 'Cache-Control', 'public, max-age=300'];
  const upstreamTimeoutMs = String(config.UPSTREAM_TIMEOUT_MS);
  const cache = new PublicCache(config.PUBLIC_CACHE_MS);

  const notFound = (res: http.ServerResponse, method: string, requestId: string) => {
    res.writeHead(404, [...notFoundHeaders, 'X-Request-Id', requestId]);
    res.end(method === 'HEAD' ? undefined : NOT_FOUND);
  };

  /** No route: a hosted page, a CORS preflight, or the 404. Answers the label its request is counted under. */
  const answerUnmatched = (req: http.IncomingMessage, res: http.ServerResponse, method: string, path: string, requestId: string): string => {
    if (deps.pages?.serve(req, res, path, requestId)) return 'pages';
    const preflight = cors.preflight(req, path);
    if (preflight && 'headers' in preflight) {
      res.writeHead(204, [...security, ...preflight.headers, 'X-Request-Id', requestId]);
      res.end();
      return 'unmatched';
    }
    // A browser developer learns why the browser will refuse the call, not only that it was a 404.
    if (preflight) deps.logger.warn({ origin: req.headers.origin, method: req.headers['access-control-request-method'], path, reason: preflight.refused }, 'CORS preflight refused');
    notFound(res, method, requestId);
    return 'unmatched';
  };

  /** The gateway's own routes: the key set, and the revocation feed for other back ends (404 while off). */
  const answerLocal = (req: http.IncomingMessage, res: http.ServerResponse, method: string, route: RouteSpec, ctx: ForwardContext) => {
    if (route.path === REVOCATIONS_PATH) {
      const events = deps.revocationEvents;
      const token = events?.enabled ? events.tokenOf(req.headers.authorization) : undefined;
      if (!events?.enabled) notFound(res, method, ctx.requestId);
      else if (token === undefined) sendError(res, errors.unauthorized(), ctx, deps.logger);
      // Streams per token are capped: a leaked token cannot hold the gateway's sockets.
      else if (!events.hasRoomFor(token)) sendError(res, errors.rateLimited(5), ctx, deps.logger);
      else events.stream(req, res, [...ctx.security, 'X-Request-Id', ctx.requestId], token);
      return;
    }
    res.writeHead(200, [...ctx.security, ...keySetHeaders, 'X-Request-Id', ctx.requestId]);
    res.end(method === 'HEAD' ? undefined : keySet);
  };

  /** Who asks and from where, and the one record the request is logged with, read before any route is looked up. */
  const admit = (req: http.IncomingMessage): Admitted => {
    const started = process.hrtime.bigint();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const claims = deps.verifier.verifyHeader(req.headers.authorization);
    // The holder of an ended session is no actor; while that cannot be told from memory (the feed is
    // behind), the request is logged without one.
    const revoked = claims ? deps.revocations.isRevoked(claims.sid) : false;
    // Awaited when forwarded to a route that uses the token; elsewhere a failed store read changes nothing.
    if (revoked instanceof Promise) revoked.catch(() => undefined);
    return {
      started,
      method: req.method ?? 'GET',
      url,
      path: q < 0 ? url : url.slice(0, q),
      requestId: resolveRequestId(req.headers['x-request-id']),
      ip: clientAddress(req, trust),
      claims,
      revoked,
      actor: claims && revoked === false ? { type: claims.kind, id: claims.sub, role: claims.role } : undefined,
      routeLabel: 'unmatched',
    };
  };

  const log = (a: Admitted, status: number) => {
    const durationMs = elapsedMs(a.started);
    logRequest(deps.requestLogger, { method: a.method, url: a.url, status, durationMs, ip: a.ip, actor: a.actor, requestId: a.requestId });
    deps.http?.observe(a.method, a.routeLabel, status, durationMs / 1000);
  };

  /**
   * A public answer held in memory (the version check) is answered from it: handed to the socket
   * whole in one end(), like a 404, and logged at once, without the finish and close listeners an
   * answer piped from a service needs. Otherwise the fill this request's answer is to leave.
   */
  const cached = (req: http.IncomingMessage, res: http.ServerResponse, a: Admitted, route: RouteSpec, span: EdgeSpan | undefined, answerSecurity: string[]): { answered: true } | { fill?: Fill } => {
    if (route.caching !== 'public' || route.upstream === 'local') return {};
    const found = cache.lookup(a.method, a.url, req.headers);
    if (!('hit' in found)) return { fill: found.fill };
    req.resume();
    const status = cache.answer(req, res, found.hit, [...answerSecurity, 'X-Request-Id', a.requestId]);
    span?.end(status);
    log(a, status);
    return { answered: true };
  };

  /** What a route's request must pass before anything reaches a service: a cookie route refuses another site's page (403). */
  const guarded = (req: http.IncomingMessage, res: http.ServerResponse, route: RouteSpec, ctx: ForwardContext): boolean => {
    if (!route.readsCookie || crossSite.allows(req)) return true;
    req.resume();
    sendError(res, GatewayErrors.crossSite(), ctx, deps.logger);
    return false;
  };

  /** To the route's service; an ended session's token stops here first (401), or a 503 while the feed cannot tell. */
  const forwarded = (req: http.IncomingMessage, res: http.ServerResponse, a: Admitted, route: RouteSpec, ctx: ForwardContext, fill: Fill | undefined) => {
    const withCache: ForwardContext = fill ? { ...ctx, fill, cache } : route.evictsCached ? { ...ctx, cache } : ctx;
    const upstream = deps.upstreams[route.upstream as Exclude<Upstream, 'local'>];
    const send = () => forward(route, req, res, withCache, upstream);
    const { claims, revoked } = a;
    let answer: Promise<void>;
    if (claims && actsOnSession(route) && revoked !== false) {
      answer = assertSessionLive({ isRevoked: () => revoked }, claims).then(() => {
        a.actor = { type: claims.kind, id: claims.sub, role: claims.role };
        return send();
      });
      answer.catch(() => req.resume());
    } else {
      answer = send();
    }
    answer.catch((err: unknown) => sendError(res, err, ctx, deps.logger));
  };

  // Each request takes one of five named ways: unmatched (a page, a preflight or the 404), cached, refused
  // by a guard, local (the gateway's own routes), or forwarded to a service.
  const handle: http.RequestListener = (req, res) => {
    const a = admit(req);
    // The OpenID provider's paths (openid-passthrough.ts) are one route of their own.
    const route = isOpenIdPath(a.path) ? OPENID_ROUTE : matcher.match(a.method, a.path);
    if (!route) {
      a.routeLabel = answerUnmatched(req, res, a.method, a.path, a.requestId);
      log(a, res.statusCode);
      return;
    }
    a.routeLabel = route.path;
    // The exporter blanks the URL's secret query values before a span leaves the process.
    const span = edgeSpan(a.method, route.path, a.url, req.headers.traceparent);
    const answerSecurity = cors.enabled ? [...security, ...cors.responseHeaders(req)] : security;
    const hold = cached(req, res, a, route, span, answerSecurity);
    if ('answered' in hold) return;
    let logged = false;
    const logOnce = (status = res.statusCode) => {
      if (logged) return;
      logged = true;
      span?.end(status);
      log(a, status);
    };
    res.once('finish', () => logOnce());
    // Closed before the answer was all sent: the client gave up (499, as nginx logs it), whatever the service did.
    res.once('close', () => logOnce(res.writableFinished ? res.statusCode : CLIENT_CLOSED_REQUEST));
    const ctx: ForwardContext = { span, ip: a.ip, requestId: a.requestId, production, security: answerSecurity, limit: route.body === 'stream' ? config.UPLOAD_LIMIT_BYTES : jsonLimit, bodyTimeoutMs: config.BODY_TIMEOUT_MS, upstreamTimeoutMs, language: deps.languages && requestLanguage(deps.languages, req) };
    if (!guarded(req, res, route, ctx)) return;
    if (route.upstream === 'local') {
      req.resume();
      answerLocal(req, res, a.method, route, ctx);
      return;
    }
    forwarded(req, res, a, route, ctx, hold.fill);
  };
  // A fault in the gateway's own code answers a logged 500 at once, never a request left hanging.
  return (req, res) => {
    try {
      handle(req, res);
    } catch (err) {
      req.resume();
      sendError(res, err, { security, requestId: resolveRequestId(req.headers['x-request-id']) }, deps.logger);
    }
  };
}

/** A request as the gateway admitted it: what every decision reads, and what its one log record says. */
interface Admitted {
  started: bigint;
  method: string;
  url: string;
  path: string;
  requestId: string;
  ip: string;
  claims: ReturnType<AccessTokenVerifier['verifyHeader']>;
  /** Whether the token's session ended, from memory; a promise while the feed must be asked. */
  revoked: ReturnType<RevocationCheck['isRevoked']> | false;
  /** Set once the session is known live: the holder of an ended one is logged as nobody. */
  actor: Actor | undefined;
  /** The route template the request is counted under (`unmatched`, `pages`). */
  routeLabel: string;
}

interface ForwardContext {
  /** The request's span, when tracing is on: its context goes to the service. */
  span?: EdgeSpan;
  ip: string;
  requestId: string;
  production: boolean;
  /** helmet's headers as a flat [name, value, …] list. */
  security: string[];
  limit: number;
  /** How long a client may take to send its whole body. */
  bodyTimeoutMs: number;
  /** How long the gateway waits for a service's answer (sent on as the service's deadline). */
  upstreamTimeoutMs: string;
  /** The language chosen for the request (the switch's cookie, else Accept-Language), told to the service. */
  language?: string;
  /** The public answers held: filled from this answer (`fill`), or emptied once this change is accepted (the route's `evictsCached`). */
  cache?: PublicCache;
  fill?: Fill;
}

async function forward(route: RouteSpec, req: http.IncomingMessage, res: http.ServerResponse, ctx: ForwardContext, upstream: UpstreamClient): Promise<void> {
  const headers = upstreamHeaders(req, route, ctx);
  const body = await requestBody(req, route, ctx, headers);
  let answer;
  try {
    answer = await upstream.request(req.method ?? 'GET', req.url ?? '/', headers, body);
  } catch (err) {
    // However the aborted upstream request failed, a body past the cap is the client's 413, and
    // one that did not arrive in time its 408.
    if (body && !Buffer.isBuffer(body) && body.exceeded) throw tooLarge();
    if (body && !Buffer.isBuffer(body) && body.timedOut) throw bodyTimeout();
    throw err;
  }
  writeAnswer(res, route, answer, ctx);
}

/** What the service is sent: the allow-listed client headers, the internal ones (always overwritten), and the refresh token from the kind's cookie. */
function upstreamHeaders(req: http.IncomingMessage, route: RouteSpec, ctx: ForwardContext): http.OutgoingHttpHeaders {
  const outgoing: http.OutgoingHttpHeaders = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers[name];
    if (value !== undefined) outgoing[name] = value;
  }
  outgoing[InternalHeaders.clientIp] = ctx.ip;
  outgoing[InternalHeaders.requestId] = ctx.requestId;
  outgoing[InternalHeaders.requestBudget] = ctx.upstreamTimeoutMs;
  if (ctx.language) outgoing[InternalHeaders.language] = ctx.language;
  ctx.span?.inject(outgoing);
  if (route.protocol === 'openid') {
    for (const name of OPENID_REQUEST_HEADERS) {
      const value = req.headers[name];
      if (value !== undefined) outgoing[name] = value;
    }
    const cookies = providerCookies(req.headers.cookie);
    if (cookies) outgoing.cookie = cookies;
    return outgoing;
  }
  cookiesToService(route, req.headers.cookie, outgoing);
  return outgoing;
}

/**
 * The body to send on, adding its content headers to `outgoing`: a JSON body read whole (small by
 * definition, BODY_LIMIT), an upload piped through a byte cap, or none (the request is drained).
 */
async function requestBody(req: http.IncomingMessage, route: RouteSpec, ctx: ForwardContext, outgoing: http.OutgoingHttpHeaders): Promise<Buffer | CappedStream | undefined> {
  const hasBody = req.headers['content-length'] !== undefined ? req.headers['content-length'] !== '0' : req.headers['transfer-encoding'] !== undefined;
  if (route.body === 'none' || !hasBody) {
    req.resume();
    return undefined;
  }
  if (Number(req.headers['content-length'] ?? 0) > ctx.limit) throw tooLarge();
  if (req.headers['content-type']) outgoing['content-type'] = req.headers['content-type'];
  if (route.body === 'json') {
    const body = await readCapped(req, ctx.limit, ctx.bodyTimeoutMs);
    outgoing['content-length'] = String(body.length);
    return body;
  }
  if (req.headers['content-length']) outgoing['content-length'] = req.headers['content-length'];
  else outgoing['transfer-encoding'] = 'chunked';
  const capped = byteCap(ctx.limit);
  const deadline = setTimeout(() => {
    capped.timedOut = true;
    capped.destroy(bodyTimeout());
  }, ctx.bodyTimeoutMs);
  req.once('end', () => clearTimeout(deadline)).once('close', () => clearTimeout(deadline));
  req.pipe(capped);
  return capped;
}

/** The service's answer to the client: security headers, the kind's cookie set or cleared, the allow-listed headers, the body piped. */
function writeAnswer(res: http.ServerResponse, route: RouteSpec, answer: UpstreamAnswer, ctx: ForwardContext): void {
  const headers: string[] = [...ctx.security, 'X-Request-Id', ctx.requestId];
  if (route.protocol === 'openid') providerSetCookies(answer.headers, headers);
  else cookiesFromService(route, answer.headers, ctx.production, headers);
  for (const name of route.protocol === 'openid' ? [...RETURNED_RESPONSE_HEADERS, ...OPENID_RESPONSE_HEADERS] : RETURNED_RESPONSE_HEADERS) {
    const value = answer.headers[name];
    if (typeof value === 'string') headers.push(name, value);
  }
  res.writeHead(answer.status, headers);
  if (ctx.fill) ctx.cache?.keep(ctx.fill, answer.status, answer.headers, answer.body);
  if (route.evictsCached && answer.status < 300) ctx.cache?.evict();
  answer.body.once('error', () => res.destroy());
  // Number(undefined) is NaN: an answer of unknown length streams.
  if (Number(answer.headers['content-length']) <= WHOLE_ANSWER_BYTES) endWhole(answer.body, res);
  else answer.body.pipe(res);
}

/**
 * Reads a small answer whole and ends the client's with it: as a string (latin1, exact for any
 * bytes) Node writes it with the head in one write, where piping writes the body on its own and sets
 * up a pipe's listeners on both streams (bench/RESULTS.md, "The gateway's cheapest answers, trimmed").
 */
function endWhole(body: Readable, res: http.ServerResponse): void {
  const chunks: Buffer[] = [];
  body.on('data', (chunk: Buffer) => chunks.push(chunk));
  body.once('end', () => {
    if (chunks.length === 0) res.end();
    else res.end((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('latin1'), 'latin1');
  });
}

function sendError(res: http.ServerResponse, err: unknown, ctx: Pick<ForwardContext, 'security' | 'requestId'>, logger: Logger): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const answer = toErrorAnswer(err, logger, { request_id: ctx.requestId });
  const body = Buffer.from(JSON.stringify(answer.body));
  const headers = [...ctx.security, 'X-Request-Id', ctx.requestId, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length)];
  for (const [name, value] of Object.entries(answer.headers)) headers.push(name, value);
  res.writeHead(answer.status, headers);
  res.end(body);
}

const tooLarge = () => errors.tooLarge();
// The connection is closed after this answer (Connection: close): what the client still sends is never read.
const bodyTimeout = () => errors.bodyTimeout();

/** The whole request body; a 413 as soon as it passes `limit` bytes, a 408 if it takes longer than `timeoutMs`. */
function readCapped(req: http.IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (err: unknown) => {
      clearTimeout(deadline);
      req.off('data', onData);
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.resume();
        fail(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const deadline = setTimeout(() => fail(bodyTimeout()), timeoutMs);
    req.on('data', onData);
    req.once('end', () => {
      clearTimeout(deadline);
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    });
    req.once('error', fail);
  });
}

type CappedStream = Transform & { exceeded: boolean; timedOut: boolean };

/** Errors the stream once more than `limit` bytes went through, which aborts the upstream request. */
function byteCap(limit: number): CappedStream {
  let seen = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > limit) {
        stream.exceeded = true;
        return callback(tooLarge());
      }
      callback(null, chunk);
    },
  }) as CappedStream;
  stream.exceeded = false;
  stream.timedOut = false;
  return stream;
}
