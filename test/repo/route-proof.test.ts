// Which acts need a recent proof is a property of the route's row (libs/shared/src/routes), applied
// by the dispatcher: this walks the table and fails for any row that changes something and neither
// asks for a proof nor is named below with the reason it need not. A new route that changes a
// credential, an address, a role, a way in or another account fails here until its row says so.
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
