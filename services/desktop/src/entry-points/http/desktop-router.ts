// The desktop routes: the version check (no session, cacheable) and the per-user sync.
import { createHash } from 'node:crypto';
import { Router } from 'express';
import { InternalHeaders, ok, type AccessTokenVerifier, type Outbox } from '@acct/shared';
import type { DesktopConfig } from '../../config';
import { isPlatform, toReleaseRecord, type ReleaseRepository } from '../../data-access/release-repository';
import type { SyncRepository } from '../../data-access/sync-repository';
import { requireUser, sync } from '../../domain/sync';
import { DesktopErrors } from '../../errors';

export interface DesktopRouterDeps {
  config: DesktopConfig;
  releases: ReleaseRepository;
  syncs: SyncRepository;
  outbox: Outbox;
  verifier: AccessTokenVerifier;
}

export function desktopRouter(deps: DesktopRouterDeps): Router {
  const router = Router();

  router.get('/api/desktop/latest-version', async (req, res) => {
    const platform = req.query.platform;
    if (platform === undefined || platform === '') throw DesktopErrors.platformMissing();
    if (!isPlatform(platform)) throw DesktopErrors.platformUnknown();
    const latest = await deps.releases.latest(platform);
    if (!latest) throw DesktopErrors.noRelease();
    const record = toReleaseRecord(latest);
    const etag = `"${createHash('sha256').update(JSON.stringify(record)).digest('base64url').slice(0, 27)}"`;
    res.setHeader('Cache-Control', `public, max-age=${deps.config.LATEST_VERSION_MAX_AGE_SECONDS}`);
    res.setHeader('ETag', etag);
    if (req.get('if-none-match') === etag) {
      res.status(304).end();
      return;
    }
    res.json(ok('Latest version', record));
  });

  router.post('/api/desktop/sync', async (req, res) => {
    const user = requireUser(deps.verifier.verifyHeader(req.get('authorization')));
    const answer = await sync({ repo: deps.syncs, outbox: deps.outbox, config: deps.config }, user, req.body, req.get(InternalHeaders.requestId));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Sync complete', answer));
  });

  return router;
}
