// Password hashing: bcrypt over an HMAC-SHA-256 pre-hash (so bcrypt's 72-byte limit never silently
// truncates), a dummy compare for unknown accounts, and cost upgrades on the next login.
import { createHmac } from 'node:crypto';
import bcrypt from 'bcrypt';
import { AuthErrors } from '../errors';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

// A fixed, public key: the pre-hash only normalises length; bcrypt does the work.
const PREHASH_KEY = 'acct-password-prehash-v1';

export class PasswordHasher {
  private dummy?: Promise<string>;

  constructor(private readonly cost: number) {}

  private prehash(password: string): string {
    return createHmac('sha256', PREHASH_KEY).update(password, 'utf8').digest('base64');
  }

  hash(password: string): Promise<string> {
    return bcrypt.hash(this.prehash(password), this.cost);
  }

  verify(password: string, hash: string): Promise<boolean> {
    return bcrypt.compare(this.prehash(password), hash);
  }

  needsUpgrade(hash: string): boolean {
    try {
      return bcrypt.getRounds(hash) < this.cost;
    } catch {
      return false;
    }
  }

  /** Spends one compare's time, so that an unknown email costs what a known one does. */
  async burn(password: string): Promise<void> {
    this.dummy ??= bcrypt.hash('dummy-password-never-matches', this.cost);
    await bcrypt.compare(this.prehash(password), await this.dummy);
  }
}

/** Checked after the spec's own validation order. */
export function assertPasswordPolicy(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) throw AuthErrors.passwordPolicy();
}
