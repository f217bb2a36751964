// The refresh cookie's attributes by mode, set and cleared alike (the end-to-end refresh file checks
// the development answer through the stack; production's was a stack of its own until this file).
import { clearedRefreshCookie, refreshCookie } from '../src/refresh-cookie';

describe('the refresh cookie', () => {
  const now = Date.UTC(2026, 0, 1);

  it('is HttpOnly, Secure and SameSite=None in production, with the session’s Max-Age, on the kind’s auth path', () => {
    expect(refreshCookie('user', 'a.b', true, 604800, now)).toBe(
      'userRefreshToken=a.b; Max-Age=604800; Path=/api/auth/user; Expires=Thu, 08 Jan 2026 00:00:00 GMT; HttpOnly; Secure; SameSite=None',
    );
    expect(refreshCookie('admin', 'a.b', true, undefined, now)).toBe('adminRefreshToken=a.b; Path=/api/auth/admin; HttpOnly; Secure; SameSite=None');
  });

  it('is cleared in production with the attributes it was set with, or a browser keeps the Secure one', () => {
    expect(clearedRefreshCookie('user', true)).toBe('userRefreshToken=; Path=/api/auth/user; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=None');
  });

  it('is SameSite=Lax and not Secure elsewhere, set and cleared', () => {
    expect(refreshCookie('user', 'a b', false, 60, now)).toBe('userRefreshToken=a%20b; Max-Age=60; Path=/api/auth/user; Expires=Thu, 01 Jan 2026 00:01:00 GMT; HttpOnly; SameSite=Lax');
    expect(clearedRefreshCookie('admin', false)).toBe('adminRefreshToken=; Path=/api/auth/admin; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax');
  });
});
