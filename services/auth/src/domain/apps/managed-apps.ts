// The apps admins register, through the /admin console and the admin API: what an app may be (the
// rules of its redirect URIs and scopes, the same whoever registers it), its secret shown once and
// kept as a hash, a new secret with an overlap in which the old one still works, and what ending an
// app ends (every session it holds, as a revocation of each grant would). The protocol reads these
// apps through security/openid-provider.ts; the apps the deployment declares (OPENID_CLIENTS) are
// listed beside them and changed only in configuration. Every change is in the admin's activity.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { noteActivity } from '../shared/activity';
import { HIDDEN_OR_CONTROL, asBody } from '../shared/validation';
import { endAppGrant } from './app-sign-in';
import { APP_SCOPES, type AppDefinition, type AppScope, type AppSecretRecord, type DeclaredApp, type ManagedApp, type Needs, type RequestContext } from './ports';

/** What admins see of an app: never a secret nor its hash, only when each was made and until when it works. */
export interface AppView extends AppDefinition {
  id: string;
  /** `console`: registered by an admin; `configuration`: declared by the deployment (OPENID_CLIENTS), read-only here. */
  source: 'console' | 'configuration';
  secrets: Array<{ createdAt: string; expiresAt?: string }>;
  createdAt?: string;
  updatedAt?: string;
}

/** At most this many apps are registered in the console: a list the console shows whole. */
export const MAX_APPS = 200;
/** How long an old secret may keep working after a new one is made, at most (7 days). */
export const MAX_OVERLAP_HOURS = 168;
const DEFAULT_OVERLAP_HOURS = 24;
const MAX_URIS = 10;
const MAX_URI_LENGTH = 2000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
// RFC 8252 §7.1: a private-use scheme is a reverse domain name the app's publisher controls.
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+$/;

const invalid = (message: string) => AuthErrors.appInvalid(message);

/** A URI an app names: absolute, no fragment, no credentials; https, or http on this machine's loopback. A native app's redirect may also use a private-use scheme. */
function checkUri(value: unknown, field: string, opts: { privateUse: boolean }): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_URI_LENGTH) throw invalid(`${field}: each an absolute URI of at most ${MAX_URI_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${field}: ${value} is not an absolute URI`);
  }
  if (url.hash || value.includes('#')) throw invalid(`${field}: ${value} has a fragment (RFC 6749 §3.1.2)`);
  if (url.username || url.password) throw invalid(`${field}: ${value} carries credentials`);
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return value;
  if (scheme === 'http') {
    if (LOOPBACK_HOSTS.has(url.hostname)) return value;
    throw invalid(`${field}: ${value}: http is only for this machine's loopback (127.0.0.1, [::1], localhost); use https`);
  }
  if (opts.privateUse && PRIVATE_USE_SCHEME.test(scheme)) return value;
  throw invalid(`${field}: ${value}: ${opts.privateUse ? 'https, http on the loopback, or a private-use scheme named as a reverse domain (com.example.app:/callback)' : 'https, or http on the loopback'}`);
}

function uriList(value: unknown, field: string, opts: { privateUse: boolean }): string[] {
  if (!Array.isArray(value) || value.length > MAX_URIS) throw invalid(`${field}: a list of at most ${MAX_URIS} URIs`);
  const uris = value.map((v) => checkUri(v, field, opts));
  return [...new Set(uris)];
}

function flag(value: unknown, field: string, otherwise: boolean): boolean {
  if (value === undefined) return otherwise;
  if (typeof value !== 'boolean') throw invalid(`${field}: true or false`);
  return value;
}

/**
 * An app's definition from a request body: a registration (`before` undefined) or a change of one
 * (the fields given replace `before`'s; kind, confidential and native stay as registered). Every
 * rule holds of the whole result.
 */
export function readAppDefinition(raw: unknown, before?: AppDefinition): AppDefinition {
  const body = asBody(raw);
  if (before) {
    for (const fixed of ['kind', 'confidential', 'native'] as const) {
      if (body[fixed] !== undefined && body[fixed] !== before[fixed]) throw invalid(`${fixed}: fixed at registration; register a new app instead`);
    }
  }
  const name = body.name === undefined && before ? before.name : body.name;
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 64 || HIDDEN_OR_CONTROL.test(name)) throw invalid('name: 1 to 64 characters, no control characters');
  const kind = before?.kind ?? (body.kind === undefined ? 'user' : body.kind);
  if (kind !== 'user' && kind !== 'admin') throw invalid('kind: user or admin');
  const native = before?.native ?? flag(body.native, 'native', false);
  const confidential = before?.confidential ?? flag(body.confidential, 'confidential', false);
  if (native && confidential) throw invalid('confidential: a native app keeps no secret (RFC 8252 §8.5)');
  const redirectUris = body.redirectUris === undefined ? (before?.redirectUris ?? []) : uriList(body.redirectUris, 'redirectUris', { privateUse: native });
  const postLogoutRedirectUris =
    body.postLogoutRedirectUris === undefined ? (before?.postLogoutRedirectUris ?? []) : uriList(body.postLogoutRedirectUris, 'postLogoutRedirectUris', { privateUse: native });
  const deviceCode = flag(body.deviceCode, 'deviceCode', before?.deviceCode ?? false);
  if (redirectUris.length === 0 && !deviceCode) throw invalid('redirectUris: an app needs one, or deviceCode');
  let backchannelLogoutUri = before?.backchannelLogoutUri;
  if (body.backchannelLogoutUri === null || body.backchannelLogoutUri === '') backchannelLogoutUri = undefined;
  else if (body.backchannelLogoutUri !== undefined) backchannelLogoutUri = checkUri(body.backchannelLogoutUri, 'backchannelLogoutUri', { privateUse: false });
  let scopes: AppScope[] = before?.scopes ?? [...APP_SCOPES];
  if (body.scopes !== undefined) {
    if (!Array.isArray(body.scopes) || body.scopes.some((s) => !(APP_SCOPES as readonly unknown[]).includes(s))) throw invalid(`scopes: among ${APP_SCOPES.join(', ')}`);
    scopes = APP_SCOPES.filter((s) => (body.scopes as unknown[]).includes(s));
  }
  if (!scopes.includes('openid')) throw invalid('scopes: openid is always among them');
  const firstParty = flag(body.firstParty, 'firstParty', before?.firstParty ?? false);
  return { name: name.trim(), kind, firstParty, confidential, native, deviceCode, redirectUris, postLogoutRedirectUris, ...(backchannelLogoutUri ? { backchannelLogoutUri } : {}), scopes };
}

/** The hash an app's secret is kept as. */
export const appSecretHash = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** A new secret: 256 random bits, shown once. */
function newSecret(now: Date): { secret: string; record: AppSecretRecord } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, record: { hash: appSecretHash(secret), createdAt: now } };
}

/** Whether `presented` is one of the app's secrets that still works; every kept secret is compared, so the answer takes as long whichever matched. */
export function appSecretMatches(secrets: Array<Pick<AppSecretRecord, 'hash' | 'expiresAt'>>, presented: unknown, now = new Date()): boolean {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > 512) return false;
  const given = Buffer.from(appSecretHash(presented), 'hex');
  let matched = false;
  for (const secret of secrets) {
    const same = timingSafeEqual(given, Buffer.from(secret.hash, 'hex'));
    matched = (same && (!secret.expiresAt || secret.expiresAt > now)) || matched;
  }
  return matched;
}

function viewOf(app: ManagedApp): AppView {
  const { secrets, createdAt, updatedAt, ...definition } = app;
  return {
    ...definition,
    source: 'console',
    secrets: secrets.map((s) => ({ createdAt: s.createdAt.toISOString(), ...(s.expiresAt ? { expiresAt: s.expiresAt.toISOString() } : {}) })),
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

const declaredView = (app: DeclaredApp): AppView => ({ ...app, source: 'configuration', secrets: [] });

function assertProviderOn(deps: Needs<'policy'>): void {
  if (!deps.policy.apps.enabled) throw AuthErrors.openIdProviderOff();
}

/** The app of the console with this id; a declared one is refused by name (it is changed in configuration). */
async function managedApp(deps: Needs<'policy' | 'managedApps'>, id: string): Promise<ManagedApp> {
  assertProviderOn(deps);
  if (deps.policy.apps.declared.some((a) => a.id === id)) throw AuthErrors.appDeclared();
  const app = typeof id === 'string' && id.length <= 64 ? await deps.managedApps.find(id) : undefined;
  if (!app) throw AuthErrors.appNotFound();
  return app;
}

/** Every app: those the deployment declares, then those of the console, oldest first. */
export async function listApps(deps: Needs<'policy' | 'managedApps'>): Promise<AppView[]> {
  assertProviderOn(deps);
  const managed = await deps.managedApps.list(MAX_APPS);
  return [...deps.policy.apps.declared.map(declaredView), ...managed.map(viewOf)];
}

export async function getApp(deps: Needs<'policy' | 'managedApps'>, id: string): Promise<AppView> {
  assertProviderOn(deps);
  const declared = deps.policy.apps.declared.find((a) => a.id === id);
  if (declared) return declaredView(declared);
  const app = await deps.managedApps.find(id);
  if (!app) throw AuthErrors.appNotFound();
  return viewOf(app);
}

const actorOf = (ctx: RequestContext): { kind: AccountKind; accountId: string } => ({ kind: 'admin', accountId: ctx.actor!.sub });

/** Registers an app; a confidential one's secret is in the answer, and nowhere else ever. */
export async function registerApp(deps: Needs<'policy' | 'managedApps' | 'activity' | 'logger'>, raw: unknown, ctx: RequestContext): Promise<{ app: AppView; secret?: string }> {
  assertProviderOn(deps);
  const definition = readAppDefinition(raw);
  if ((await deps.managedApps.list(MAX_APPS)).length >= MAX_APPS) throw invalid(`at most ${MAX_APPS} apps: delete one first`);
  const now = new Date();
  const issued = definition.confidential ? newSecret(now) : undefined;
  const app: ManagedApp = { id: `app-${randomBytes(12).toString('hex')}`, ...definition, secrets: issued ? [issued.record] : [], createdAt: now, updatedAt: now };
  if (!(await deps.managedApps.create(app))) throw new Error('a random app id was taken');
  await noteActivity(deps, ctx, { ...actorOf(ctx), type: 'app_registered', details: [app.name, app.id] });
  return { app: viewOf(app), ...(issued ? { secret: issued.secret } : {}) };
}

/** Changes what may change of an app; what changed is named in the activity (never a value). Its sessions go on. */
export async function updateApp(deps: Needs<'policy' | 'managedApps' | 'activity' | 'logger'>, id: string, raw: unknown, ctx: RequestContext): Promise<AppView> {
  const before = await managedApp(deps, id);
  const definition = readAppDefinition(raw, before);
  const { kind: _kind, confidential: _confidential, native: _native, ...changes } = definition;
  const changed = (Object.keys(changes) as Array<keyof typeof changes>).filter((k) => JSON.stringify(changes[k]) !== JSON.stringify(before[k]));
  if (changed.length === 0) return viewOf(before);
  const updated = await deps.managedApps.update(id, { ...changes, backchannelLogoutUri: changes.backchannelLogoutUri });
  if (!updated) throw AuthErrors.appNotFound();
  await noteActivity(deps, ctx, { ...actorOf(ctx), type: 'app_updated', details: [updated.name, updated.id, `changed: ${changed.join(', ')}`] });
  return viewOf(updated);
}

/**
 * A new secret for a confidential app, shown once. The ones before it keep working for
 * `overlapHours` (24 by default, 0 to refuse them at once, at most 168) while the app's servers
 * move to the new one; one already ending sooner keeps its own end.
 */
export async function rotateAppSecret(
  deps: Needs<'policy' | 'managedApps' | 'activity' | 'logger'>,
  id: string,
  raw: unknown,
  ctx: RequestContext,
): Promise<{ app: AppView; secret: string }> {
  const app = await managedApp(deps, id);
  if (!app.confidential) throw invalid('a public app has no secret to replace');
  const { overlapHours = DEFAULT_OVERLAP_HOURS } = asBody(raw);
  if (typeof overlapHours !== 'number' || !Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > MAX_OVERLAP_HOURS) throw invalid(`overlapHours: a whole number of hours from 0 to ${MAX_OVERLAP_HOURS}`);
  const now = new Date();
  const until = new Date(now.getTime() + overlapHours * 3_600_000);
  const kept = overlapHours === 0 ? [] : app.secrets.filter((s) => !s.expiresAt || s.expiresAt > now).map((s) => ({ ...s, expiresAt: s.expiresAt && s.expiresAt < until ? s.expiresAt : until }));
  const issued = newSecret(now);
  const updated = await deps.managedApps.update(id, { secrets: [issued.record, ...kept] });
  if (!updated) throw AuthErrors.appNotFound();
  await noteActivity(deps, ctx, { ...actorOf(ctx), type: 'app_secret_rotated', details: [updated.name, updated.id, `the old secret works ${overlapHours ? `until ${until.toISOString()}` : 'no more'}`] });
  return { app: viewOf(updated), secret: issued.secret };
}

/** Deletes an app: it signs no one in any more, and every session it holds ends (its apps told nothing: it is gone). */
export async function deleteApp(
  deps: Needs<'policy' | 'managedApps' | 'appGrants' | 'appLogouts' | 'sessions' | 'outbox' | 'activity' | 'logger'>,
  id: string,
  ctx: RequestContext,
): Promise<void> {
  const app = await managedApp(deps, id);
  if (!(await deps.managedApps.remove(id))) throw AuthErrors.appNotFound();
  const grants = await deps.appGrants.ofApp(app.id);
  for (const grantId of grants) await endAppGrant(deps, grantId, ctx);
  await noteActivity(deps, ctx, { ...actorOf(ctx), type: 'app_deleted', details: [app.name, app.id, `sessions ended: ${grants.length}`] });
}

/** The protocol's view of a console app: its definition and the secrets that still work, or undefined when there is none (or the provider is off). */
export async function appForProtocol(deps: Needs<'policy' | 'managedApps'>, id: string): Promise<(AppDefinition & { id: string; secrets: AppSecretRecord[] }) | undefined> {
  if (!deps.policy.apps.enabled || deps.policy.apps.declared.some((a) => a.id === id)) return undefined;
  const app = await deps.managedApps.find(id);
  if (!app) return undefined;
  const { createdAt: _c, updatedAt: _u, ...rest } = app;
  return rest;
}
