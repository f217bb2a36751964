// The password policy: what a new password must be, checked after the spec's own validation order.
import { AuthErrors } from '../errors';
import type { Needs } from './ports';

const PASSWORD_MIN = 8;
const PASSWORD_MAX = 128;

/** Checked after the spec's own validation order. */
export function assertPasswordPolicy(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) throw AuthErrors.passwordPolicy();
}

/** A new password found in the list of commonly breached ones is refused (after every other rule, so the contract's answers come first). */
export function assertNotCommon(deps: Needs<'passwordScreen'>, password: string): void {
  if (deps.passwordScreen.isCommon(password)) throw AuthErrors.passwordTooCommon();
}
