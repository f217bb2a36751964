// A new password checked while it is typed (account/password-check.ts): the rules every change applies,
// answered instead of refused, in their order, under a budget per client address.
import { checkNewPassword } from '../../src/domain/account/password-check';
import { passwordProblems } from '../../src/domain/shared/passwords';
import { requestOf } from '../fakes';

const screen = { screens: true, isCommon: (password: string) => password.toLowerCase() === 'password123' };

describe('a new password checked while it is typed', () => {
  it('names the first rule it does not meet: length in characters (not bytes), then the breached list', () => {
    expect(passwordProblems({ passwordScreen: screen }, 'seven77')).toEqual(['too_short']);
    // Eight characters, more than eight bytes.
    expect(passwordProblems({ passwordScreen: screen }, 'ééééééé€')).toEqual([]);
    expect(passwordProblems({ passwordScreen: screen }, 'x'.repeat(129))).toEqual(['too_long']);
    expect(passwordProblems({ passwordScreen: screen }, 'x'.repeat(128))).toEqual([]);
    expect(passwordProblems({ passwordScreen: screen }, 'PASSWORD123')).toEqual(['too_common']);
  });

  it('answers acceptable or not, asks for a password, and spends the address’s budget first', async () => {
    const spent: string[] = [];
    let allowed = true;
    const deps = {
      passwordScreen: screen,
      rateLimits: { consume: async (name: string) => (spent.push(name), allowed ? { allowed: true as const } : { allowed: false as const, retryAfterMs: 30_000 }) },
      metrics: { login() {}, refresh() {}, rateLimited() {}, otp() {} },
    } as unknown as Parameters<typeof checkNewPassword>[0];
    expect(await checkNewPassword(deps, { password: 'orbit lantern pebble' }, requestOf())).toEqual({ acceptable: true, problems: [], screened: true });
    expect(await checkNewPassword(deps, { password: 'password123' }, requestOf())).toEqual({ acceptable: false, problems: ['too_common'], screened: true });
    await expect(checkNewPassword(deps, {}, requestOf())).rejects.toMatchObject({ httpStatus: 400, message: 'Please provide password' });
    await expect(checkNewPassword(deps, { password: 42 }, requestOf())).rejects.toMatchObject({ httpStatus: 400 });
    expect(spent).toEqual(['passwordCheckIp', 'passwordCheckIp', 'passwordCheckIp', 'passwordCheckIp']);
    allowed = false;
    await expect(checkNewPassword(deps, { password: 'orbit lantern pebble' }, requestOf())).rejects.toMatchObject({ httpStatus: 429, code: 'rate_limited' });
  });
});
