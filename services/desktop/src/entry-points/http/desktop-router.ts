// The desktop routes: the public ones from the route table (the version check, no session and
// cacheable; the per-user sync), dispatched by @acct/shared/http's Operations, and the internal routes
// auth calls with the caller's own token (a user's export, the admins' releases), which no gateway
// routes (an Express router: they are not public, so not in the table).
import { Router } from 'express';
import type { Handlers } from '@acct/shared/http';
import { InternalHeaders, ok, type AccessTokenVerifier, type EventOutbox } from '@acct/shared';
import type { RevocationCheck } from '@acct/shared';
import type { LatestReleases, ReleaseStore, SyncLimits, SyncStore } from '../../domain/ports';
import { latestRelease, listReleases, publishRelease, requireAdminSession, withdrawRelease } from '../../domain/releases';
import { requireUserSession, sync } from '../../domain/sync';
import type { VersionAnswerWriter } from './latest-version';

export interface DesktopRouterDeps {
  latestReleases: LatestReleases;
  releases: ReleaseStore;
  syncs: SyncStore;
  outbox: EventOutbox;
  verifier: AccessTokenVerifier;
  revocations: RevocationCheck;
  limits: SyncLimits;
  /** The version check's answer, written by this route and by its direct path alike (latest-version.ts). */
  writeVersionAnswer: VersionAnswerWriter;
}

/** The public routes, on the service's dispatcher. */
export function desktopOperations(deps: DesktopRouterDeps) {
  return {
    latestVersion: async (req, res) => {
      deps.writeVersionAnswer(req, res, await latestRelease(deps, req.query.platform));
    },

    // A user's session (the dispatcher's guard: requireUserSession); its row names no caching, so no-store.
    sync: async (req, res, user) => {
      const answer = await sync({ repo: deps.syncs, outbox: deps.outbox, limits: deps.limits }, user, req.body, req.get(InternalHeaders.requestId));
      res.json(ok('Sync complete', answer));
    },
  } satisfies Handlers<'desktop'>;
}

/** The internal routes: never public (the gateway routes no /internal path, it answers 404 at the edge). */
export function desktopInternalRouter(deps: DesktopRouterDeps): Router {
  const router = Router();

  // Auth's export of a user's data asks for desktop's part here, with the user's own access token.
  router.get('/internal/users/me/export', async (req, res) => {
    const user = await requireUserSession(deps.revocations, deps.verifier.verifyHeader(req.get('authorization')));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Desktop data', await deps.syncs.summaryOf(user.sub)));
  });

  // The admin console's releases, through auth (which asks the admin's recent proof before a change
  // and keeps it in the activity log), with the admin's own token. Never public either.
  const admin = (authorization: string | undefined) => requireAdminSession(deps.revocations, deps.verifier.verifyHeader(authorization));
  router.get('/internal/admin/releases', async (req, res) => {
    await admin(req.get('authorization'));
    res.setHeader('Cache-Control', 'no-store');
    res.json(ok('Releases', { releases: await listReleases(deps, req.query.platform) }));
  });
  router.post('/internal/admin/releases', async (req, res) => {
    await admin(req.get('authorization'));
    res.status(201).json(ok('Release published', { release: await publishRelease(deps, req.body) }));
  });
  router.delete('/internal/admin/releases/:platform/:version', async (req, res) => {
    await admin(req.get('authorization'));
    await withdrawRelease(deps, String(req.params.platform), String(req.params.version));
    res.json(ok('Release withdrawn'));
  });

  return router;
}
