// The bundled list of commonly breached passwords: what it holds, and that off means off.
import { CommonPasswordList } from '../src/security/common-passwords';

describe('CommonPasswordList', () => {
  const on = new CommonPasswordList(true);

  it('holds the 17,950 entries of 8 characters or more of zxcvbn-ts’s passwords-common list', () => {
    expect(on.size).toBe(17_950);
  });

  it('matches in any letter case, and only whole passwords', () => {
    expect(['password123', 'PASSWORD123', 'Iloveyou1', 'qwertyuiop'].map((p) => on.isCommon(p))).toEqual([true, true, true, true]);
    expect(['password123!x', 'correct horse battery staple', 'a new and longer passphrase'].map((p) => on.isCommon(p))).toEqual([false, false, false]);
  });

  it('refuses nothing when the check is off', () => {
    const off = new CommonPasswordList(false);
    expect([off.size, off.isCommon('password123')]).toEqual([0, false]);
  });
});
