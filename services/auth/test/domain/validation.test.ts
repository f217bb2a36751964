// Display names (shared/validation.ts): the contract's length rule first, with its words, then
// nothing that would not read as it is in a list, a mail or a log.
import { AuthErrors } from '../../src/errors';
import { requireName, validateRegister } from '../../src/domain/shared/validation';

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
