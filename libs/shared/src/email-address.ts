// Email addresses: the one rule of every route and every event schema. The spec's pattern
// `^[^\s@]+@[^\s@]+\.[^\s@]+$` is checked in linear time after a length cap (the regex backtracks
// quadratically on hostile input), then the normalised address must be one a mailer accepts and a
// person can tell apart: no control, invisible or RFC 5322 special characters, no empty domain label.
// The domain is mapped as DNS does (IDNA, UTS #46: `example。com` is `example.com`), and each address
// has a skeleton that lookalikes share (`cаrol@` with a Cyrillic а is `carol@`): one account each.
import { domainToASCII, domainToUnicode } from 'node:url';
import { remove as withoutConfusables } from 'confusables';

/** RFC 5321's limit on a forward path; anything longer is refused before any other work. */
const EMAIL_MAX_LENGTH = 254;

const WHITESPACE = /\s/;
// Controls, format and invisible characters, unassigned code points, separators, and the characters
// RFC 5322 allows only inside quotes: each a single-character class, so the test is linear.
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Z}\p{Default_Ignorable_Code_Point}"(),:;<>[\\\]]/u;

/**
 * The spec's pattern, decided in one pass: one `@`, no whitespace, a non-empty local part, and a
 * domain with a dot that is neither its first nor its last character.
 */
export function matchesEmailPattern(value: string): boolean {
  const at = value.indexOf('@');
  if (at < 1 || at !== value.lastIndexOf('@') || WHITESPACE.test(value)) return false;
  const domain = value.slice(at + 1);
  const dot = domain.indexOf('.', 1);
  return dot > 0 && dot < domain.length - 1;
}

/**
 * The address one account is stored and found under: trimmed, NFKC (compatibility forms fold to
 * one), lower case, without the DNS root's trailing dot, the domain mapped through IDNA (UTS #46)
 * and kept in its Unicode form. Lookup keys use it too, so `A@X.COM.`, `a@x。com` and `a@x.com` are
 * one account and share one rate-limit budget. A domain IDNA refuses is left as folded (and then
 * refused by `isDeliverableEmail`'s rules or by the mailer).
 */
export function normalizeEmail(value: string): string {
  const folded = value.trim().normalize('NFKC').toLowerCase().normalize('NFKC');
  const at = folded.lastIndexOf('@');
  if (at < 0) return folded;
  const ascii = domainToASCII(folded.slice(at + 1));
  const domain = ascii ? domainToUnicode(ascii) : folded.slice(at + 1);
  return `${folded.slice(0, at)}@${domain.endsWith('.') ? domain.slice(0, -1) : domain}`;
}

/**
 * What lookalike addresses share (UTS #39's idea of a skeleton): confusable characters of either part
 * replaced by the Latin letters they imitate, and accents dropped. Only compared, never shown or
 * mailed. `email` is normalised.
 */
export function emailSkeleton(email: string): string {
  return withoutConfusables(email).toLowerCase();
}

/** The normalised address, or undefined when the value is not an address this service accepts (a domain IDNA refuses included). */
export function parseEmail(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > EMAIL_MAX_LENGTH || !matchesEmailPattern(value)) return undefined;
  // Before IDNA mapping, which silently drops invisible characters: an address carrying one is refused.
  if (FORBIDDEN.test(value.trim())) return undefined;
  const email = normalizeEmail(value);
  if (!domainToASCII(email.slice(email.lastIndexOf('@') + 1))) return undefined;
  return isDeliverableEmail(email) ? email : undefined;
}

/** Whether a normalised address passes every rule (what event schemas check). */
export function isDeliverableEmail(email: string): boolean {
  if (email.length > EMAIL_MAX_LENGTH || !matchesEmailPattern(email) || FORBIDDEN.test(email)) return false;
  return email.slice(email.indexOf('@') + 1).split('.').every((label) => label.length > 0);
}
