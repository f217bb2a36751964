// Which acts need a recent proof is a property of the route's row (libs/shared/src/routes), applied
// by the dispatcher: this walks the table and fails for any row that changes something and neither
// asks for a proof nor is named below with the reason it need not. A new route that changes a
// credential, an address, a role, a way in or another account fails here until its row says so. The
// same walk holds the bot check (BOT_CHECK): every act anyone may send either carries it or is named
// with the reason it need not.
import { ROUTES } from '@acct/shared/routes';

/** Acts a session may do with no proof beyond itself, and why. */
const NEEDS_NO_PROOF: Record<string, string> = {
  reauthenticateAdmin: 'it is the proof',
  reauthenticateUser: 'it is the proof',
  confirmTotpAdmin: 'finishes an enrolment whose start asked for the proof, with a code of the new app',
  confirmTotpUser: 'finishes an enrolment whose start asked for the proof, with a code of the new app',
  updateOwnProfile: 'a display name: cosmetic',
  replaceOwnAvatar: 'a picture: cosmetic',
  removeOwnAvatar: 'a picture: cosmetic',
  signOutOtherSessions: 'only takes access away',
  signOutSession: 'only takes access away',
  revokeOwnApp: 'only takes access away (an app\'s sessions, and what it was allowed)',
  forgetTrustedBrowserAdmin: 'only takes trust away: the next sign-in from that browser asks for the second step again',
  forgetTrustedBrowserUser: 'only takes trust away: the next sign-in from that browser asks for the second step again',
  sync: 'the desktop data of the session’s own user, no credential',
};

const changes = ROUTES.filter((r) => r.method !== 'get' && (r.caller === 'user' || r.caller === 'admin' || r.operationId === 'registerAdmin'));

describe('the route table’s proofs', () => {
  it.each(changes.map((r) => [r.operationId, r] as const))('%s asks for a proof, or is named with its reason', (operationId, row) => {
    if (operationId in NEEDS_NO_PROOF) expect(row.proof).toBeUndefined();
    else expect([operationId, row.proof]).toEqual([operationId, expect.stringMatching(/^(recent|password-or-recent)$/)]);
  });

  it('an admin’s every act on another account reads the session from the store and asks for a recent proof', () => {
    const onOthers = ROUTES.filter((r) => r.caller === 'admin' && r.method !== 'get' && r.path.startsWith('/api/admin/'));
    expect(onOthers.length).toBeGreaterThan(5);
    for (const row of onOthers) expect([row.operationId, row.proof, row.fresh]).toEqual([row.operationId, 'recent', true]);
  });

  it('names no route that is not in the table', () => {
    const ids = new Set(ROUTES.map((r) => r.operationId));
    expect(Object.keys(NEEDS_NO_PROOF).filter((id) => !ids.has(id))).toEqual([]);
  });
});

/** Requests anyone may send that need no bot check with BOT_CHECK on, and why. */
const NEEDS_NO_BOT_CHECK: Record<string, string> = {
  registerAdmin: 'the first admin once (its first-run page), then only with an admin session',
  refreshAdmin: 'a refresh cookie is the proof',
  refreshUser: 'a refresh cookie is the proof',
  logoutAdmin: 'ends a session',
  logoutUser: 'ends a session',
  resetAdminPassword: 'a mailed token is the proof',
  resetUserPassword: 'a mailed token is the proof',
  checkPassword: 'reads no account, sends nothing: its own budget per address',
  emailLinkSignInUser: 'a mailed link is the proof',
  emailCodeSignInUser: 'a flow the check already guarded, and a mailed code',
  emailLinkSignInAdmin: 'a mailed link is the proof',
  emailCodeSignInAdmin: 'a flow the check already guarded, and a mailed code',
  verifyOtp: 'a flow a login opened (guarded), and its own budget of codes',
  secondStepPasskeyOptions: 'a flow a login opened (guarded)',
  requestFactorRecovery: 'a flow a login opened (guarded): the password was right',
  confirmFactorRecovery: 'a mailed token is the proof',
  verifyEmail: 'a mailed token is the proof',
  confirmEmailChange: 'a mailed token is the proof',
  undoEmailChange: 'a mailed token is the proof',
  passkeyOptionsAdmin: 'a passkey is the proof, and a sign-in page asks for options on every view',
  passkeyLoginAdmin: 'a passkey is the proof',
  passkeyOptionsUser: 'a passkey is the proof, and a sign-in page asks for options on every view',
  passkeyLoginUser: 'a passkey is the proof',
};

const anonymousActs = ROUTES.filter((r) => r.method !== 'get' && r.caller === 'anyone' && r.upstream === 'auth');

describe('the route table’s bot checks', () => {
  it.each(anonymousActs.map((r) => [r.operationId, r] as const))('%s asks for the bot check, or is named with its reason', (operationId, row) => {
    if (operationId in NEEDS_NO_BOT_CHECK) expect(row.botCheck).toBeUndefined();
    else expect([operationId, row.botCheck]).toEqual([operationId, true]);
  });

  it('names no route that is not an anonymous act of the table', () => {
    const ids = new Set(anonymousActs.map((r) => r.operationId));
    expect(Object.keys(NEEDS_NO_BOT_CHECK).filter((id) => !ids.has(id))).toEqual([]);
  });
});
