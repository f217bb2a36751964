// The version check's answer, and its direct path. Every desktop client asks it (cacheable, no
// session) and it is read from the latest-release cache: through Express, its middlewares cost about
// five times the answer (bench/RESULTS.md, "The gateway's cheapest paths against bare"). So a
// well-formed check is answered here, before Express, when the release is known; anything else (a
// malformed platform, no release, a store failure, a request tracing may keep a span of) goes on to
// Express, whose route writes the same answer with the same function.
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { ok, type HttpMetrics } from '@acct/shared';
import { pathOf } from '@acct/shared/routes';
import { mayTraceIncoming } from '@acct/shared/tracing';
import type { LatestReleases, Release } from '../../domain/ports';
import { isPlatform } from '../../domain/platforms';
import { toReleaseRecord } from '../../domain/releases';

const PATH = pathOf('latestVersion');

/** Writes one release's answer (200, or 304 to a client that has it; no body to HEAD); answers the status. */
export type VersionAnswerWriter = (req: http.IncomingMessage, res: http.ServerResponse, release: Release) => number;

/** The answer writer: each release serialised once (the cache hands back the same object), with its ETag. */
export function versionAnswerWriter(maxAgeSeconds: number): VersionAnswerWriter {
  const cacheControl = `public, max-age=${maxAgeSeconds}`;
  const answers = new WeakMap<object, { etag: string; body: Buffer }>();
  return (req, res, release) => {
    let answer = answers.get(release);
    if (!answer) {
      const body = Buffer.from(JSON.stringify(ok('Latest version', toReleaseRecord(release))));
      answer = { etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`, body };
      answers.set(release, answer);
    }
    const { etag, body } = answer;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, ['Cache-Control', cacheControl, 'ETag', etag]);
      res.end();
      return 304;
    }
    res.writeHead(200, ['Cache-Control', cacheControl, 'ETag', etag, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length)]);
    res.end(req.method === 'HEAD' ? undefined : body);
    return 200;
  };
}

/** A request listener that answers the version check itself when it can, and hands the rest to `next`. */
export function versionCheckFirst(deps: { latestReleases: LatestReleases; http: HttpMetrics }, write: VersionAnswerWriter, next: http.RequestListener): http.RequestListener {
  return (req, res) => {
    const url = req.url ?? '';
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || !url.startsWith(PATH) || (url.length > PATH.length && url[PATH.length] !== '?') || mayTraceIncoming(req.headers.traceparent)) return next(req, res);
    const platform = new URLSearchParams(url.slice(PATH.length + 1)).getAll('platform');
    if (platform.length !== 1 || !isPlatform(platform[0])) return next(req, res);
    const started = process.hrtime.bigint();
    deps.latestReleases.latest(platform[0]).then(
      (release) => {
        if (!release) return next(req, res);
        const status = write(req, res, release);
        deps.http.observe(method, PATH, status, Number(process.hrtime.bigint() - started) / 1e9);
      },
      () => next(req, res),
    );
  };
}
