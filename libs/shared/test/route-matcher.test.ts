import { RouteMatcher, type RouteSpec } from '../src/routes';

const route = (method: RouteSpec['method'], path: string): RouteSpec => ({ operationId: `${method} ${path}`, method, path, upstream: 'auth', body: 'none', caller: 'anyone' });

describe('RouteMatcher', () => {
  const me = route('get', '/api/auth/user/me');
  const login = route('post', '/api/auth/user/login');
  const avatar = route('get', '/api/admin/users/:userId/avatar');
  const update = route('put', '/api/admin/users/:userId');
  const matcher = new RouteMatcher([me, login, avatar, update]);

  it.each([
    ['GET', '/api/auth/user/me', me],
    ['HEAD', '/api/auth/user/me', me],
    ['GET', '/API/Auth/User/ME', me],
    ['GET', '/api/auth/user/me/', me],
    ['POST', '/api/auth/user/login', login],
    ['GET', '/api/admin/users/abc/avatar', avatar],
    ['GET', '/api/admin/users/abc/avatar/', avatar],
    ['PUT', '/api/admin/users/abc', update],
    ['POST', '/api/auth/user/me', undefined],
    ['GET', '/api/auth/user/login', undefined],
    ['GET', '/api/auth/user/me//', undefined],
    ['DELETE', '/api/admin/users/abc', undefined],
    ['GET', '/api/admin/users/a/b/avatar', undefined],
    ['GET', '/', undefined],
  ])('%s %s matches its route, or none', (method, path, expected) => {
    expect(matcher.match(method, path)).toBe(expected);
  });

  it('finds an exact route with no parameters, and a parameterised one with its values decoded', () => {
    expect(matcher.find('GET', '/api/auth/user/me')).toEqual({ route: me, params: {} });
    expect(matcher.find('PUT', '/api/admin/users/a%20b')).toEqual({ route: update, params: { userId: 'a b' } });
  });

  it('finds nothing for a parameter that is not valid percent-encoding, or a path no route has', () => {
    expect(matcher.find('PUT', '/api/admin/users/%E0%A4%A')).toBeUndefined();
    expect(matcher.find('GET', '/nowhere')).toBeUndefined();
  });

  it('answers the methods some route takes on a path', () => {
    expect(matcher.methodsFor('/api/admin/users/abc')).toEqual(['PUT']);
    expect(matcher.methodsFor('/api/auth/user/me')).toEqual(['GET']);
  });
});
