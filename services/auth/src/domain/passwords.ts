// The password policy: what a new password must be, checked after the spec's own validation order.
import { AuthErrors } from '../errors';

const PASSWORD_MIN = 8;
const PASSWORD_MAX = 128;

/** Checked after the spec's own validation order. */
export function assertPasswordPolicy(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) throw AuthErrors.passwordPolicy();
}
