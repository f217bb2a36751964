// Display names (shared/validation.ts): the contract's length rule first, with its words, then
// nothing that would not read as it is in a list, a mail or a log.
import { AuthErrors } from '../../src/errors';
import { requireEmail, requireName, validateAdminForgot, validateLogin, validateRegister, validateUserForgot } from '../../src/domain/shared/validation';

describe('requireName', () => {
  it.each([
    ['a NUL', 'Ev\u0000e'],
    ['a C0 control (escape)', 'Eve\u001b[31m'],
    ['a C1 control', 'Eve\u0085x'],
    ['a line break', 'Eve\nAdmin'],
    ['a line separator', 'Eve\u2028Admin'],
    ['a right-to-left override', 'Eve\u202egpj.exe'],
    ['a right-to-left mark', 'Eve\u200fx'],
    ['a bidi isolate', '\u2066Eve\u2069'],
    ['one visible character and a zero-width joiner', 'E\u200d'],
    ['one visible character and a combining mark', 'E\u0301'],
  ])('refuses %s', (_label, name) => {
    expect(() => requireName(name)).toThrow(expect.objectContaining({ message: AuthErrors.nameCharacters().message }));
  });

  it.each(['Grace', 'Zoë', 'José María', '李小龙', 'Ada L.', 'محمد'])('keeps %j', (name) => {
    expect(requireName(`  ${name} `)).toBe(name);
  });

  it('keeps the contract’s answers first: a non-string, or a trimmed length outside 2 to 20', () => {
    for (const name of [42, ' a ', 'x'.repeat(21), '\u0000']) expect(() => requireName(name)).toThrow(expect.objectContaining({ message: 'Name must be 2-20 characters' }));
    expect(() => validateRegister({ name: 'Eve\nAdmin', email: 'nope', password: 'short' })).toThrow(expect.objectContaining({ message: AuthErrors.nameCharacters().message }));
  });
});

// The email matrix, moved down from the end-to-end email-input file (which keeps one hostile route,
// the lookalike fold and the stored bad address through the stack): every validator that takes an
// address applies the one rule (`requireEmail`, `parseEmail`), in milliseconds whatever the input.
describe('an email given to the routes’ validators', () => {
  const HOSTILE = `a@${'.'.repeat(99_000)}@`;
  const validators: Array<[string, (email: unknown) => unknown]> = [
    ['register', (email) => validateRegister({ name: 'Grace', email, password: 'long enough 1' })],
    ['login', (email) => validateLogin({ email, password: 'whatever1' })],
    ['user forgot-password', (email) => validateUserForgot({ email })],
    ['an admin’s update of a user', (email) => requireEmail(email)],
  ];

  it.each(validators)('is refused by %s as Invalid email format at once when it is a 100 KB hostile string', (_route, validate) => {
    const started = performance.now();
    expect(() => validate(HOSTILE)).toThrow(expect.objectContaining({ message: 'Invalid email format' }));
    // The backtracking regex took about a minute on this input; the linear check, microseconds.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('is not checked past presence by the admin forgot-password, which answers alike for everything', () => {
    expect(validateAdminForgot({ email: HOSTILE })).toEqual({ email: undefined });
  });

  it.each(['x<a@evil.io>', 'a,b;c@evil.io', 'a\u0000b@evil.io', 'zero\u200bwidth@evil.io', 'quote"d@evil.io', 'a@evil..io', 'someone@exa mple.com'])(
    'refuses %j, which would break a mail later, with Invalid email format',
    (email) => {
      for (const [, validate] of validators) expect(() => validate(email)).toThrow(expect.objectContaining({ message: 'Invalid email format' }));
    },
  );

  it('takes 254 characters and refuses 255', () => {
    const longest = `${'x'.repeat(242)}@example.com`;
    expect(requireEmail(longest)).toBe(longest);
    expect(() => requireEmail(`y${longest}`)).toThrow(expect.objectContaining({ message: 'Invalid email format' }));
  });

  it.each([
    ['a trailing dot', 'carol@example.com.'],
    ['another letter case', 'Carol@EXAMPLE.com'],
    ['fullwidth letters', '\uff43\uff41\uff52\uff4f\uff4c@example.com'],
    ['a domain ending in an ideographic full stop', 'carol@example.com\u3002'],
  ])('folds %s into the one address an account is kept under', (_label, email) => {
    expect(requireEmail(email)).toBe('carol@example.com');
  });

  it('keeps an international address that mail can carry', () => {
    expect(requireEmail('josé@exämple.com')).toBe(requireEmail('JOSÉ@exämple.com'));
  });
});
