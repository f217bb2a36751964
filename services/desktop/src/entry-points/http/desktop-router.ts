// The desktop routes: the version check (no session, cacheable) and the per-user sync.
import { createHash } from 'node:crypto';
import { Router } from 'express';
import { InternalHeaders, ok, type AccessTokenVerifier, type EventOutbox } from '@acct/shared';
import { toReleaseRecord, type LatestReleaseCache } from '../../data-access/release-repository';
import { isPlatform } from '../../domain/platforms';
import { requireUser, sync, type SyncLimits, type SyncStore } from '../../domain/sync';
import { DesktopErrors } from '../../errors';

export interface DesktopRouterDeps {
  latestReleases: LatestReleaseCache;
  syncs: SyncStore;
  outbox: EventOutbox;
  verifier: AccessTokenVerifier;
  limits: SyncLimits;
  latestVersionMaxAgeSeconds: number;
}

export function desktopRouter(deps: DesktopRouterDeps): Router {
  const router = Router();
  const { latestReleases } = deps;

  // The answer for one release, serialised once: the cache hands back the same release object.
  const answers = new WeakMap<object, { etag: string; body: Buffer }>();
  const answerFor = (release: Parameters<typeof toReleaseRecord>[0]) => {
    let answer = answers.get(release);
    if (!answer) {
      const body = Buffer.from(JSON.stringify(ok('Latest version', toReleaseRecord(release))));
      answer = { etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`, body };
      answers.set(release, answer);
    }
    return answer;
  };

  router.get('/api/desktop/latest-version', async (req, res) => {
    const platform = req.query.platform;
    if (platform === undefined || platform === '') throw DesktopErrors.platformMissing();
    if (!isPlatform(platform)) throw DesktopErrors.platformUnknown();
    const latest = await latestReleases.latest(platform);
    if (!latest) throw DesktopErrors.noRelease();
    const { etag, body } = answerFor(latest);
    res.setHeader('Cache-Control', `public, max-age=${deps.latestVersionMaxAgeSeconds}`);
    res.setHeader('ETag', etag);
    if (req.get('if-none-match') === etag) {
      res.status(304).end();
      return;
    }
    res.type('application/json').send(body);
  });

  router.post('/api/desktop/sync', async (req, res) => {
    const user = requireUser(deps.verifier.verifyHeader(req.get('authorization')));
    const answer = await sync({ repo: deps.syncs, outbox: deps.outbox, limits: deps.limits }, user, req.body, req.get(InternalHeaders.requestId));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Sync complete', answer));
  });

  return router;
}
