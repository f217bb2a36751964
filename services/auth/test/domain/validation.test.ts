// Display names (shared/validation.ts): the contract's length rule first, with its words, then
// nothing that would not read as it is in a list, a mail or a log.
import { AuthErrors } from '../../src/errors';
import {
  pageParams,
  requireCode,
  requireEmail,
  requireName,
  requirePasskeyAnswer,
  requireRecoveryCode,
  validateAdminForgot,
  validateLogin,
  validateOtp,
  validateRegister,
  validateReset,
  validateUserForgot,
} from '../../src/domain/shared/validation';

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

  it.each(['Grace', 'Zoë', 'José María', '李小龙', 'Ada L.', 'محمد', 'Al', 'x'.repeat(20)])('keeps %j', (name) => {
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

  it('takes 254 characters and refuses 255, each label within its own bound', () => {
    const address = (last: number) => `${'x'.repeat(64)}@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(last)}.com`;
    expect(address(57)).toHaveLength(254);
    expect(requireEmail(address(57))).toBe(address(57));
    expect(() => requireEmail(address(58))).toThrow(expect.objectContaining({ message: 'Invalid email format' }));
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

// The contract's 400s, rule by rule, moved down from the end-to-end register and login files (which
// keep one case per route for the wiring, and the malformed and non-JSON bodies the HTTP layer
// answers): each validator answers its first failing rule in the contract's words.
const refuses = (validate: () => unknown, message: string) => expect(validate).toThrow(expect.objectContaining({ message }));

describe('validateRegister', () => {
  it.each([
    ['nothing', {}, 'Please provide name, email and password'],
    ['not an object', 'name=Ann', 'Please provide name, email and password'],
    ['an array', [{ name: 'Ann' }], 'Please provide name, email and password'],
    ['no password', { name: 'Ann', email: 'ann@example.com' }, 'Please provide name, email and password'],
    ['an empty name', { name: '', email: 'x', password: 'y' }, 'Please provide name, email and password'],
    ['a null email', { name: 'Ann', email: null, password: 'long enough' }, 'Please provide name, email and password'],
    ['a one-letter name with a bad email', { name: ' A ', email: 'bad', password: 'y' }, 'Name must be 2-20 characters'],
    ['a 21-letter name', { name: 'x'.repeat(21), email: 'ann@example.com', password: 'long enough' }, 'Name must be 2-20 characters'],
    ['a non-string name', { name: 42, email: 'ann@example.com', password: 'long enough' }, 'Name must be 2-20 characters'],
    ['a bad email with a short password', { name: 'Ann', email: 'ann@example', password: 'y' }, 'Invalid email format'],
    ['an email with a space', { name: 'Ann', email: 'an n@example.com', password: 'long enough' }, 'Invalid email format'],
    ['an email in an array', { name: 'Ann', email: ['ann@example.com'], password: 'long enough' }, 'Invalid email format'],
    ['a 7-character password', { name: 'Ann', email: 'ann@example.com', password: '1234567' }, 'Password must be 8-128 characters'],
    ['a 129-character password', { name: 'Ann', email: 'ann@example.com', password: 'p'.repeat(129) }, 'Password must be 8-128 characters'],
    ['a numeric password', { name: 'Ann', email: 'ann@example.com', password: 123456789 }, 'Password must be 8-128 characters'],
  ])('answers %s with the first failing rule', (_case, body, message) => {
    refuses(() => validateRegister(body), message);
  });

  it.each([8, 128])('takes a %i-character password, the name trimmed and the address normalised', (length) => {
    expect(validateRegister({ name: ' Ann ', email: 'Ann@Example.com', password: 'p'.repeat(length) })).toEqual({ name: 'Ann', email: 'ann@example.com', password: 'p'.repeat(length) });
  });
});

describe('validateLogin', () => {
  it.each([
    ['nothing', {}, 'Please provide email and password'],
    ['no password and a bad email', { email: 'bad' }, 'Please provide email and password'],
    ['an empty password', { email: 'a@b.co', password: '' }, 'Please provide email and password'],
    ['a bad email', { email: 'a@b', password: 'whatever' }, 'Invalid email format'],
    ['a numeric email', { email: 12, password: 'whatever' }, 'Invalid email format'],
  ])('answers %s with %s', (_case, body, message) => {
    refuses(() => validateLogin(body), message);
  });

  it('takes a non-string password as one that matches no account (the same work as a wrong one)', () => {
    expect(validateLogin({ email: 'ann@example.com', password: 12345678 })).toEqual({ email: 'ann@example.com', password: '' });
  });
});

describe('validateOtp', () => {
  it.each([
    ['nothing', {}, 'Please provide challenge_token and code'],
    ['no code', { challenge_token: 't' }, 'Please provide challenge_token and code'],
    ['no token', { code: '123456' }, 'Please provide challenge_token and code'],
    ['a recovery code without a token', { recovery_code: 'abcde-23456' }, 'Please provide challenge_token and code'],
    ['five digits', { challenge_token: 't', code: '12345' }, 'Code must be a 6 digit OTP'],
    ['seven digits', { challenge_token: 't', code: '1234567' }, 'Code must be a 6 digit OTP'],
    ['letters', { challenge_token: 't', code: '12a456' }, 'Code must be a 6 digit OTP'],
    ['a number rather than a string', { challenge_token: 't', code: 123456 }, 'Code must be a 6 digit OTP'],
    ['a malformed recovery code', { challenge_token: 't', recovery_code: 'abc' }, 'Recovery code must be 10 letters and digits as issued, such as abcde-23456'],
    ['a passkey answer that is not an object', { challenge_token: 't', passkey: 'yes' }, 'passkey must be the WebAuthn answer object that the browser gave'],
  ])('answers %s with %s', (_case, body, message) => {
    refuses(() => validateOtp(body), message);
  });

  it('reads a code first, then a recovery code, then a passkey answer', () => {
    expect(validateOtp({ challenge_token: 't', code: '123456', recovery_code: 'abcde-23456' }).proof).toEqual({ type: 'code', code: '123456' });
    expect(validateOtp({ challenge_token: 't', recovery_code: 'ABCDE-23456' }).proof).toEqual({ type: 'recovery', code: 'abcde23456' });
    expect(validateOtp({ challenge_token: 't', passkey: { id: 'abc', response: {} } }).proof).toEqual({ type: 'passkey', response: { id: 'abc', response: {} } });
  });

  it('takes the flow id in place of challenge_token, or both when they are the same; two different ones are refused', () => {
    expect(validateOtp({ flow: 't', code: '123456' })).toEqual({ challengeToken: 't', proof: { type: 'code', code: '123456' }, trustBrowser: false });
    expect(validateOtp({ flow: 't', recovery_code: 'abcde-23456' }).challengeToken).toBe('t');
    expect(validateOtp({ challenge_token: 't', flow: 't', code: '123456' }).challengeToken).toBe('t');
    refuses(() => validateOtp({ challenge_token: 't', flow: 'u', code: '123456' }), 'challenge_token and flow name different sign-ins: send one of them');
    // A flow that is no string names no flow: the attempt finds none (401), as such a challenge_token does.
    expect(validateOtp({ flow: 7, code: '123456' }).challengeToken).toBe('');
    refuses(() => validateOtp({ flow: '', code: '123456' }), 'Please provide challenge_token and code');
  });
});

describe('requireCode and requireRecoveryCode', () => {
  it.each([
    [undefined, 'Please provide code'],
    ['', 'Please provide code'],
    ['12345', 'Code must be a 6 digit OTP'],
    [' 123456', 'Code must be a 6 digit OTP'],
  ])('a code %j is refused: %s', (code, message) => {
    refuses(() => requireCode(code), message);
  });

  it.each([
    ['abcde-23456', 'abcde23456'],
    ['ABCDE23456', 'abcde23456'],
    ['  abcde-23456 ', 'abcde23456'],
  ])('a recovery code %j is read as %j', (given, read) => {
    expect(requireRecoveryCode(given)).toBe(read);
  });

  it.each(['abcde-2345', 'abcde--23456', 'abcd1-23456', 'abcde_23456', 42])('a recovery code %j is refused (1 and 0 are never issued)', (given) => {
    refuses(() => requireRecoveryCode(given), 'Recovery code must be 10 letters and digits as issued, such as abcde-23456');
  });
});

describe('requirePasskeyAnswer', () => {
  it.each([
    ['null', null],
    ['an array', [{ id: 'abc', response: {} }]],
    ['an id that is not base64url', { id: 'a b', response: {} }],
    ['an id too long', { id: 'a'.repeat(1367), response: {} }],
    ['no response', { id: 'abc' }],
    ['a response that is an array', { id: 'abc', response: [] }],
  ])('refuses %s', (_case, answer) => {
    refuses(() => requirePasskeyAnswer(answer), 'passkey must be the WebAuthn answer object that the browser gave');
  });
});

describe('the forgot and reset validators', () => {
  it.each([
    [{}, 'Please provide a valid email'],
    [{ email: '   ' }, 'Please provide a valid email'],
    [{ email: 42 }, 'Please provide a valid email'],
    [{ email: 'not an address' }, 'Invalid email format'],
  ])('the user route refuses %j: %s', (body, message) => {
    refuses(() => validateUserForgot(body), message);
  });

  it('the admin route asks only for presence, and matches nothing with what is not an address', () => {
    refuses(() => validateAdminForgot({}), 'Please provide email');
    expect(validateAdminForgot({ email: 42 })).toEqual({ email: undefined });
    expect(validateAdminForgot({ email: ' Ada@Example.com ' })).toEqual({ email: 'ada@example.com' });
  });

  it.each([
    [{}, 'Please provide token and newPassword'],
    [{ token: 't' }, 'Please provide token and newPassword'],
    [{ token: 't', newPassword: 'short' }, 'Password must be 8-128 characters'],
    [{ token: 't', newPassword: 12345678 }, 'Password must be 8-128 characters'],
    [{ token: 42, newPassword: 'long enough 1' }, 'Invalid or expired reset token'],
  ])('reset refuses %j: %s', (body, message) => {
    refuses(() => validateReset(body), message);
  });
});

describe('pageParams', () => {
  it.each([['0'], ['101'], ['-1'], ['1.5'], ['1000'], [['10']]])('refuses a limit of %j', (limit) => {
    refuses(() => pageParams({ limit }, 20), 'limit must be a whole number from 1 to 100');
  });

  it.each([['not-an-id'], ['0123456789abcdef0123456'], [['0123456789abcdef01234567']]])('refuses a cursor of %j', (cursor) => {
    refuses(() => pageParams({ cursor }, 20), 'Invalid cursor');
  });

  it('takes the fallback and the first page when neither is given, and a given id as the cursor', () => {
    expect(pageParams({}, 20)).toEqual({ limit: 20, cursor: '' });
    expect(pageParams({ limit: '100', cursor: '0123456789abcdef01234567' }, 20)).toEqual({ limit: 100, cursor: '0123456789abcdef01234567' });
    expect(pageParams({ limit: '1' }, 20)).toEqual({ limit: 1, cursor: '' });
  });
});
