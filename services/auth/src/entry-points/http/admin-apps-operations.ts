// Admin routes of the apps that sign people in through this service as an OpenID provider: list,
// read, register, change, a new secret, delete (domain/apps/managed-apps.ts). Admin sessions only,
// and a change asks for the admin's recent proof (the route table's rows say so). A secret is in the
// one answer that made it, never again.
import { ok } from '@acct/shared';
import { deleteApp, getApp, listApps, registerApp, rotateAppSecret, updateApp } from '../../domain/apps/managed-apps';
import type { AuthDeps } from '../../domain/ports';
import { requestContextOf } from './request-context';
import type { Handlers } from '@acct/shared/http';

export function adminAppsOperations(deps: AuthDeps) {
  return {
    listApps: async (_req, res) => {
      res.json(ok('Apps', { apps: await listApps(deps) }));
    },

    getApp: async (_req, res, _admin, params) => {
      res.json(ok('App', { app: await getApp(deps, params.appId) }));
    },

    registerApp: async (req, res, admin) => {
      const registered = await registerApp(deps, req.body, requestContextOf(req, admin));
      res.status(201).json(ok('App registered', registered));
    },

    updateApp: async (req, res, admin, params) => {
      res.json(ok('App updated', { app: await updateApp(deps, params.appId, req.body, requestContextOf(req, admin)) }));
    },

    rotateAppSecret: async (req, res, admin, params) => {
      res.json(ok('New secret made', await rotateAppSecret(deps, params.appId, req.body, requestContextOf(req, admin))));
    },

    deleteApp: async (req, res, admin, params) => {
      await deleteApp(deps, params.appId, requestContextOf(req, admin));
      res.json(ok('App deleted'));
    },
  } satisfies Partial<Handlers<'auth'>>;
}
