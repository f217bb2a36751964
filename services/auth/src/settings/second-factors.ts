// An account's own second factors: the key their secrets are sealed with, the issuer an
// authenticator app shows, the passkeys' relying party (off in production until it is named), and
// how long a proof lets a session change them.
import { z } from 'zod';
import { env, isLocalUrl, splitList } from '@acct/shared';
import { feature } from './feature';

/** Stands in outside production; production refuses it (it is in this file for anyone to read). */
const DEVELOPMENT_MFA_KEY = '0000000000000000000000000000000000000000000000000000000000000000';

export const secondFactorSettings = feature({
  variables: {
    /** AES-256-GCM key of stored authenticator secrets: 32 bytes as 64 hex digits or base64. Required in production. */
    ...env.secret('MFA_ENCRYPTION_KEY'),
    /** The issuer an authenticator app shows beside the account. */
    TOTP_ISSUER: env.string('Account Service'),
    /** The passkeys' relying party: the site's registrable domain. Unset in production: passkeys are off. */
    WEBAUTHN_RP_ID: z.string().min(1).optional(),
    WEBAUTHN_RP_NAME: env.string('Account Service'),
    /** Pages allowed to run a passkey ceremony (exact origins); by default the RP id's https origin, or outside production any localhost port. */
    WEBAUTHN_ORIGINS: env.list([], { test: (o) => /^https?:\/\/[^/\s*]+$/.test(o), expected: 'origins such as https://app.example.com' }),
    /** How long a proof lets a session add or remove factors. */
    STEP_UP_SECONDS: env.int(300, 30),
    /** How long a browser trusted at a second step lets the password alone sign in from it; 0: no browser is trusted. */
    TRUSTED_BROWSER_DAYS: env.int(30, 0).pipe(z.number().max(365)),
  },
  section: (v) => {
    const rpId = v.WEBAUTHN_RP_ID ?? (v.NODE_ENV === 'production' ? undefined : 'localhost');
    // Outside production with no list, any localhost page: the gateway's own origin on whatever PORT, and a dev server beside it.
    const anyLocalhostPort = !v.WEBAUTHN_ORIGINS.length && rpId === 'localhost';
    const origins = v.WEBAUTHN_ORIGINS.length ? v.WEBAUTHN_ORIGINS : rpId && rpId !== 'localhost' ? [`https://${rpId}`] : [];
    return {
      /** The 32 bytes of the key (a malformed key is refused by `rules` before the config is used). */
      key: parseMfaKey(v.MFA_ENCRYPTION_KEY ?? DEVELOPMENT_MFA_KEY) ?? Buffer.alloc(0),
      totpIssuer: v.TOTP_ISSUER,
      stepUpSeconds: v.STEP_UP_SECONDS,
      stepUpMs: v.STEP_UP_SECONDS * 1000,
      trustedBrowserDays: v.TRUSTED_BROWSER_DAYS,
      /** The passkeys' relying party; undefined: passkeys are off. */
      webauthn: rpId ? { rpId, rpName: v.WEBAUTHN_RP_NAME, origins, ...(anyLocalhostPort ? { anyLocalhostPort } : {}) } : undefined,
    };
  },
  /** The key as 32 bytes: 64 hex digits or base64 of 32 bytes. */
  rules: (given) => {
    const key = given.MFA_ENCRYPTION_KEY;
    if (key === undefined || key === '') return [];
    return parseMfaKey(key) ? [] : [['MFA_ENCRYPTION_KEY', 'must be 32 bytes, as 64 hex digits or base64 (openssl rand -hex 32)']];
  },
  production: (given) => {
    const refused: Array<[string, string]> = [];
    const mfaKey = given.MFA_ENCRYPTION_KEY;
    if (!mfaKey) refused.push(['MFA_ENCRYPTION_KEY', 'required in production (32 random bytes: openssl rand -hex 32), the same on every replica; it encrypts authenticator secrets']);
    else if (mfaKey.trim() === DEVELOPMENT_MFA_KEY) refused.push(['MFA_ENCRYPTION_KEY', 'the published development key; in production use openssl rand -hex 32']);
    const rpId = given.WEBAUTHN_RP_ID;
    if (rpId && isLocalUrl(`http://${rpId}`)) refused.push(['WEBAUTHN_RP_ID', 'names this machine; in production it is the public site passkeys belong to (example.com)']);
    const localOrigins = splitList(given.WEBAUTHN_ORIGINS ?? '').filter((o) => isLocalUrl(o) || !/^https:\/\//i.test(o));
    if (localOrigins.length) refused.push(['WEBAUTHN_ORIGINS', `in production every origin must be https and public (refused: ${localOrigins.join(', ')})`]);
    return refused;
  },
  weakened: (s) => (s.webauthn ? [] : ['WEBAUTHN_RP_ID unset: passkeys are off (set it to the site passkeys belong to)']),
  policy: (s) => ({ mfa: { totpIssuer: s.totpIssuer, webauthn: s.webauthn, trustedBrowserDays: s.trustedBrowserDays } }),
});

function parseMfaKey(value: string): Buffer | undefined {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  const decoded = Buffer.from(text, 'base64');
  return /^[A-Za-z0-9+/_-]{43}=?$/.test(text) && decoded.length === 32 ? decoded : undefined;
}
