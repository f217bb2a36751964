// The list of commonly breached passwords that new passwords are screened against (NIST 800-63B
// 5.1.1.2): @zxcvbn-ts/language-common's `passwords-common`, 49,233 passwords ranked by how often
// they appear in breach corpora, bundled (no network lookup). Only its entries of 8 characters or
// more can ever match (shorter passwords fail the length policy first), and those are kept: 17,950,
// lower-cased, compared with the candidate lower-cased. Loaded at start (about 40 ms), not on the
// first registration.
import { dictionary } from '@zxcvbn-ts/language-common';
import type { PasswordScreen } from '../domain/shared/ports';

export class CommonPasswordList implements PasswordScreen {
  private readonly list: ReadonlySet<string>;

  constructor(enabled: boolean) {
    this.list = enabled ? new Set((dictionary['passwords-common'] as string[]).map((p) => String(p).toLowerCase()).filter((p) => [...p].length >= 8)) : new Set();
  }

  get screens(): boolean {
    return this.list.size > 0;
  }

  isCommon(password: string): boolean {
    return this.list.has(password.toLowerCase());
  }

  get size(): number {
    return this.list.size;
  }
}
