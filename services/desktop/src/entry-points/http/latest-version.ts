// The version check's answer, and its direct path. Every desktop client asks it (cacheable, no
// session) and it is read from the latest-release cache: through Express, its middlewares cost about
// five times the answer (bench/RESULTS.md, "The version check"). So a well-formed check is answered
// here, before Express, when the release is known; anything else (a malformed platform, no release,
// a store failure, a traced request) goes on to Express, which answers it as before.
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { ok, type HttpMetrics } from '@acct/shared';
import type { LatestReleases, Release } from '../../domain/ports';
import { isPlatform } from '../../domain/platforms';
import { toReleaseRecord } from '../../domain/releases';

const PATH = '/api/desktop/latest-version';

/** One release's answer, serialised once (the cache hands back the same release object) with its ETag. */
export function versionAnswers(): (release: Release) => { etag: string; body: Buffer } {
  const answers = new WeakMap<object, { etag: string; body: Buffer }>();
  return (release) => {
    let answer = answers.get(release);
    if (!answer) {
      const body = Buffer.from(JSON.stringify(ok('Latest version', toReleaseRecord(release))));
      answer = { etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`, body };
      answers.set(release, answer);
    }
    return answer;
  };
}

export interface VersionCheckDeps {
  latestReleases: LatestReleases;
  latestVersionMaxAgeSeconds: number;
  http: HttpMetrics;
}

/** A request listener that answers the version check itself when it can, and hands the rest to `next`. */
export function versionCheckFirst(deps: VersionCheckDeps, answerFor: ReturnType<typeof versionAnswers>, next: http.RequestListener): http.RequestListener {
  const cacheControl = `public, max-age=${deps.latestVersionMaxAgeSeconds}`;
  return (req, res) => {
    const url = req.url ?? '';
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || !url.startsWith(PATH) || (url.length > PATH.length && url[PATH.length] !== '?') || req.headers.traceparent !== undefined) return next(req, res);
    const platform = new URLSearchParams(url.slice(PATH.length + 1)).getAll('platform');
    if (platform.length !== 1 || !isPlatform(platform[0])) return next(req, res);
    const started = process.hrtime.bigint();
    deps.latestReleases.latest(platform[0]).then(
      (release) => {
        if (!release) return next(req, res);
        const { etag, body } = answerFor(release);
        const fresh = req.headers['if-none-match'] === etag;
        const status = fresh ? 304 : 200;
        res.writeHead(
          status,
          fresh
            ? ['Cache-Control', cacheControl, 'ETag', etag]
            : ['Cache-Control', cacheControl, 'ETag', etag, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length)],
        );
        res.end(fresh || method === 'HEAD' ? undefined : body);
        deps.http.observe(method, PATH, status, Number(process.hrtime.bigint() - started) / 1e9);
      },
      () => next(req, res),
    );
  };
}
