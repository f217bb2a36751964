// Email addresses: the one rule of every route and every event schema. The spec's pattern
// `^[^\s@]+@[^\s@]+\.[^\s@]+$` is checked in linear time after a length cap (the regex backtracks
// quadratically on hostile input), then the normalised address must be one a mailer accepts and a
// person can tell apart: no control, invisible or RFC 5322 special characters, no empty domain label.

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
 * one), lower case, without the DNS root's trailing dot. Lookup keys use it too, so `A@X.COM.`
 * and `a@x.com` are one account and share one rate-limit budget.
 */
export function normalizeEmail(value: string): string {
  const folded = value.trim().normalize('NFKC').toLowerCase().normalize('NFKC');
  return folded.endsWith('.') && folded.includes('@') ? folded.slice(0, -1) : folded;
}

/** The normalised address, or undefined when the value is not an address this service accepts. */
export function parseEmail(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > EMAIL_MAX_LENGTH || !matchesEmailPattern(value)) return undefined;
  const email = normalizeEmail(value);
  return isDeliverableEmail(email) ? email : undefined;
}

/** Whether a normalised address passes every rule (what event schemas check). */
export function isDeliverableEmail(email: string): boolean {
  if (email.length > EMAIL_MAX_LENGTH || !matchesEmailPattern(email) || FORBIDDEN.test(email)) return false;
  return email.slice(email.indexOf('@') + 1).split('.').every((label) => label.length > 0);
}
