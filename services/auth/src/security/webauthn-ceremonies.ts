// WebAuthn ceremonies through `@simplewebauthn/server`, behind the domain's PasskeyCeremonies port.
// Every ceremony requires user verification; registrations ask for a discoverable credential and no
// attestation. The library (and its certificate parsers, about 300 modules) is loaded at the first
// ceremony: a process that never sees a passkey does not hold it (bench/RESULTS.md, issue 50 item 4).
import type * as SimpleWebAuthn from '@simplewebauthn/server';
import type { AuthenticationResponseJSON, AuthenticatorTransport, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { PasskeyCeremonies, PasskeyOptions, RelyingParty } from '../domain/factors/ports';

let library: typeof SimpleWebAuthn | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const webauthn = () => (library ??= require('@simplewebauthn/server') as typeof SimpleWebAuthn);

type PasskeyRef = { id: string; transports: string[] };
const descriptor = (p: PasskeyRef) => ({ id: p.id, transports: p.transports as AuthenticatorTransport[] });
/** What every answer is checked against: this ceremony's challenge, the relying party, a verified user. */
const expected = (rp: RelyingParty, challenge: string) => ({ expectedChallenge: challenge, expectedOrigin: rp.origins, expectedRPID: rp.rpId, requireUserVerification: true });

export class SimpleWebAuthnCeremonies implements PasskeyCeremonies {
  /** The client data's `origin`: the page the browser ran the ceremony on (the library checks it again against the one allowed). */
  originOf(answer: unknown): string | undefined {
    const clientData = (answer as { response?: { clientDataJSON?: unknown } } | null)?.response?.clientDataJSON;
    if (typeof clientData !== 'string' || clientData.length > 4096) return undefined;
    try {
      const origin = (JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8')) as { origin?: unknown }).origin;
      return typeof origin === 'string' && origin.length <= 2048 ? origin : undefined;
    } catch {
      return undefined;
    }
  }

  async registrationOptions(rp: RelyingParty, user: { name: string; displayName: string; handle: string }, exclude: PasskeyRef[]): Promise<PasskeyOptions> {
    return webauthn().generateRegistrationOptions({
      rpName: rp.rpName,
      rpID: rp.rpId,
      userName: user.name,
      userDisplayName: user.displayName,
      userID: new Uint8Array(Buffer.from(user.handle)),
      attestationType: 'none',
      excludeCredentials: exclude.map(descriptor),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    }) as unknown as Promise<PasskeyOptions>;
  }

  async verifyRegistration(rp: RelyingParty, answer: unknown, challenge: string) {
    try {
      const verified = await webauthn().verifyRegistrationResponse({ response: answer as RegistrationResponseJSON, ...expected(rp, challenge) });
      if (!verified.verified) return undefined;
      const { credential } = verified.registrationInfo;
      return { id: credential.id, publicKey: Buffer.from(credential.publicKey).toString('base64url'), counter: credential.counter, transports: credential.transports ?? [] };
    } catch {
      // Another origin, relying party or challenge, or a malformed answer: not verified.
      return undefined;
    }
  }

  async authenticationOptions(rp: RelyingParty, options: { challenge?: string; allow?: PasskeyRef[] }): Promise<PasskeyOptions> {
    return webauthn().generateAuthenticationOptions({
      rpID: rp.rpId,
      ...(options.challenge ? { challenge: new Uint8Array(Buffer.from(options.challenge, 'base64url')) } : {}),
      ...(options.allow ? { allowCredentials: options.allow.map(descriptor) } : {}),
      userVerification: 'required',
    }) as unknown as Promise<PasskeyOptions>;
  }

  async verifyAuthentication(rp: RelyingParty, answer: unknown, challenge: string, passkey: { id: string; publicKey: string; counter: number; transports: string[] }) {
    try {
      const credential = { id: passkey.id, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')), counter: passkey.counter, transports: passkey.transports as AuthenticatorTransport[] };
      const result = await webauthn().verifyAuthenticationResponse({ response: answer as AuthenticationResponseJSON, credential, ...expected(rp, challenge) });
      return result.verified ? { counter: result.authenticationInfo.newCounter } : undefined;
    } catch {
      // Another origin or challenge, a bad signature, a counter that went back (a cloned key): not verified.
      return undefined;
    }
  }
}
