// Input validation in the spec's order and words. Each function answers typed input or throws the
// spec's 400; nothing that is not a string ever reaches a query. Emails come out normalised
// (`parseEmail`, the one rule routes and event schemas share).
import { parseEmail } from '@acct/shared';
import { AuthErrors } from '../errors';
import { assertPasswordPolicy } from './passwords';

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

export interface RegisterInput {
  name: string;
  email: string;
  password: string;
}

/** A display name: 2 to 20 characters once trimmed; answers it trimmed. */
export function requireName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length < 2 || name.trim().length > 20) throw AuthErrors.nameLength();
  return name.trim();
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

export function validateOtp(raw: unknown): { challengeToken: string; code: string } {
  const { challenge_token: challengeToken, code } = asBody(raw);
  if (!present(challengeToken) || !present(code)) throw AuthErrors.otpMissing();
  if (typeof code !== 'string' || !OTP_PATTERN.test(code)) throw AuthErrors.otpFormat();
  return { challengeToken: typeof challengeToken === 'string' ? challengeToken : '', code };
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
