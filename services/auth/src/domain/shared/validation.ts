// Input validation in the spec's order and words. Each function answers typed input or throws the
// spec's 400; nothing that is not a string ever reaches a query. Emails come out normalised
// (`parseEmail`, the one rule routes and event schemas share).
import { parseEmail } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { assertPasswordPolicy } from './passwords';
import { isAccountId } from './account';

const OTP_PATTERN = /^\d{6}$/;

type Body = Record<string, unknown>;

/** Present means neither absent, null nor an empty string. */
const present = (value: unknown) => value !== undefined && value !== null && value !== '';

/** The normalised address, or the spec's `Invalid email format`. */
export function requireEmail(value: unknown): string {
  const email = parseEmail(value);
  if (email === undefined) throw AuthErrors.emailFormat();
  return email;
}

export function asBody(body: unknown): Body {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Body) : {};
}

/**
 * A sign-in flow's token in a body: under its own name (`challenge_token`, `passkey_token`), or as
 * `flow`, the id that every answer opening a flow gives (`data.flow.id`), so that a client follows
 * one kind of token. Undefined when neither is sent; '' when the one sent is no string (no flow has
 * that token); refused when both are sent and differ.
 */
export function flowTokenOf(body: Body, name: 'challenge_token' | 'passkey_token'): string | undefined {
  const named = body[name];
  const flow = body.flow;
  if (present(named) && present(flow) && named !== flow) throw AuthErrors.flowTokensDiffer(name);
  const token = present(named) ? named : flow;
  if (!present(token)) return undefined;
  return typeof token === 'string' ? token : '';
}

export interface RegisterInput {
  name: string;
  email: string;
  password: string;
}

/** A display name: 2 to 20 characters once trimmed; answers it trimmed. */
/** Control characters (C0, C1), line and paragraph breaks, and bidirectional overrides and marks: a name shown in a list, a mail or a log must read as it is. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const HIDDEN_OR_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/u;
/** What a person sees of a name: no spaces, no invisible formatting. */
const INVISIBLE = /[\s\p{Cf}\p{M}]/gu;

/** A display name: the contract's 2 to 20 characters after trimming, then nothing hidden and at least two visible characters. */
export function requireName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length < 2 || name.trim().length > 20) throw AuthErrors.nameLength();
  const trimmed = name.trim();
  if (HIDDEN_OR_CONTROL.test(trimmed) || trimmed.replace(INVISIBLE, '').length < 2) throw AuthErrors.nameCharacters();
  return trimmed;
}

export function validateRegister(raw: unknown): RegisterInput {
  const { name, email, password } = asBody(raw);
  if (!present(name) || !present(email) || !present(password)) throw AuthErrors.registerMissing();
  const trimmed = requireName(name);
  const address = requireEmail(email);
  if (typeof password !== 'string') throw AuthErrors.passwordPolicy();
  assertPasswordPolicy(password);
  return { name: trimmed, email: address, password };
}

export interface LoginInput {
  email: string;
  password: string;
}

export function validateLogin(raw: unknown): LoginInput {
  const { email, password } = asBody(raw);
  if (!present(email) || !present(password)) throw AuthErrors.loginMissing();
  const address = requireEmail(email);
  // A non-string password cannot be anyone's: it fails as credentials do, after the same work.
  return { email: address, password: typeof password === 'string' ? password : '' };
}

/** What the second step presents: a 6-digit code (mailed or from an authenticator app), a recovery code, or a passkey's answer. */
export type SecondStepProof = { type: 'code'; code: string } | { type: 'recovery'; code: string } | { type: 'passkey'; response: PasskeyAnswer };

/** A WebAuthn answer as `@simplewebauthn/browser` gives it; its content is the library's to check. */
export type PasskeyAnswer = Record<string, unknown> & { id: string; response: Record<string, unknown> };

/**
 * The contract's fields and words for a code; beside them, for accounts with factors of their own,
 * `recovery_code` or `passkey` in place of `code`, and `flow` in place of `challenge_token`.
 */
export function validateOtp(raw: unknown): { challengeToken: string; proof: SecondStepProof; trustBrowser: boolean } {
  const body = asBody(raw);
  const { code, recovery_code: recoveryCode, passkey } = body;
  const challengeToken = flowTokenOf(body, 'challenge_token');
  const token = challengeToken ?? '';
  const sent = challengeToken !== undefined;
  // Only `true` asks for it: anything else (absent, a string) trusts nothing.
  const trustBrowser = body.trust_browser === true;
  if (sent && !present(code)) {
    if (present(recoveryCode)) return { challengeToken: token, proof: { type: 'recovery', code: requireRecoveryCode(recoveryCode) }, trustBrowser };
    if (present(passkey)) return { challengeToken: token, proof: { type: 'passkey', response: requirePasskeyAnswer(passkey) }, trustBrowser };
  }
  if (!sent || !present(code)) throw AuthErrors.otpMissing();
  if (typeof code !== 'string' || !OTP_PATTERN.test(code)) throw AuthErrors.otpFormat();
  return { challengeToken: token, proof: { type: 'code', code }, trustBrowser };
}

/** A 6-digit code outside the contract's route (enrolment, step-up): the same rule and words. */
export function requireCode(value: unknown): string {
  if (!present(value)) throw AuthErrors.codeMissing();
  if (typeof value !== 'string' || !OTP_PATTERN.test(value)) throw AuthErrors.otpFormat();
  return value;
}

const RECOVERY_CODE = /^[a-z2-9]{5}-?[a-z2-9]{5}$/;

/** A recovery code as issued (`abcde-23456`), in any letter case, with or without its dash; answers it without. */
export function requireRecoveryCode(value: unknown): string {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!RECOVERY_CODE.test(text)) throw AuthErrors.recoveryCodeFormat();
  return text.replace('-', '');
}

export function requirePasskeyAnswer(value: unknown): PasskeyAnswer {
  const answer = value as PasskeyAnswer;
  const valid =
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    typeof answer.id === 'string' &&
    /^[A-Za-z0-9_-]{1,1366}$/.test(answer.id) &&
    answer.response !== null &&
    typeof answer.response === 'object' &&
    !Array.isArray(answer.response);
  if (!valid) throw AuthErrors.passkeyAnswerFormat();
  return answer;
}

/**
 * Admin route: presence only. Anything that is not an address this service accepts (a number, an
 * object, 10 KB of text) is answered alike and matches no account.
 */
export function validateAdminForgot(raw: unknown): { email: string | undefined } {
  const { email } = asBody(raw);
  if (!present(email)) throw AuthErrors.adminForgotMissing();
  return { email: parseEmail(typeof email === 'string' ? email.trim() : undefined) };
}

/** User route: a non-blank string, trimmed, then the email pattern. */
export function validateUserForgot(raw: unknown): { email: string } {
  const { email } = asBody(raw);
  if (typeof email !== 'string' || email.trim() === '') throw AuthErrors.userForgotInvalid();
  return { email: requireEmail(email.trim()) };
}

export function validateReset(raw: unknown): { token: string; newPassword: string } {
  const { token, newPassword } = asBody(raw);
  if (!present(token) || !present(newPassword)) throw AuthErrors.resetMissing();
  if (typeof newPassword !== 'string') throw AuthErrors.passwordPolicy();
  assertPasswordPolicy(newPassword);
  if (typeof token !== 'string') throw AuthErrors.resetInvalid();
  return { token, newPassword };
}

/** A list's `limit` (1 to 100, `fallback` when absent) and `cursor` (an id, or '' for the first page), from query values. */
export function pageParams(params: { limit?: unknown; cursor?: unknown }, fallback: number): { limit: number; cursor: string } {
  const limitText = params.limit ?? String(fallback);
  if (typeof limitText !== 'string' || !/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100) throw AuthErrors.badListLimit();
  const cursor = params.cursor ?? '';
  if (typeof cursor !== 'string' || (cursor !== '' && !isAccountId(cursor))) throw AuthErrors.badListCursor();
  return { limit: Number(limitText), cursor };
}
