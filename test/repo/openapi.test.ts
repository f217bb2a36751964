// openapi/openapi.yaml against the code: the routes it documents are the gateway's allow-list, its
// error codes are the catalogues', and its checker (used on every end-to-end answer) catches drift.
import { ROUTES, gatewayErrorCatalogue } from '@acct/gateway';
import { authErrorCatalogue } from '@acct/auth';
import { desktopErrorCatalogue } from '@acct/desktop';
import { documentedOperations, openApi, openApiProblems } from '@acct/test-harness/openapi';

const routed = ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`);

describe('openapi/openapi.yaml', () => {
  it('documents every route of the gateway allow-list', () => {
    expect(routed.filter((r) => !documentedOperations().includes(r))).toEqual([]);
  });

  it('documents no route the gateway does not route', () => {
    expect(documentedOperations().filter((o) => !routed.includes(o))).toEqual([]);
  });

  it('names each route of the table by its operation id, and says who may call it as the operation’s security does', () => {
    const documented = new Map(openApi().operations.map((o) => [`${o.method} ${o.template}`, o.operation]));
    // Only a session's (or the feed's) bearer token, alone: an optional token (admin registration) or a cookie is `anyone`.
    const bearerOnly = (security: unknown) => JSON.stringify(security ?? []) === JSON.stringify([{ bearerAuth: [] }]);
    expect(ROUTES.map((r, i) => [routed[i], r.operationId, r.caller !== 'anyone'])).toEqual(
      routed.map((route) => [route, documented.get(route)?.operationId, bearerOnly(documented.get(route)?.security)]),
    );
    expect(new Set(ROUTES.map((r) => r.operationId)).size).toBe(ROUTES.length);
    // A session's kind is the one its path serves.
    for (const r of ROUTES) {
      if (r.caller === 'admin') expect([r.path, /^\/api\/(admin|auth\/admin)\//.test(r.path)]).toEqual([r.path, true]);
      if (r.caller === 'user') expect([r.path, /^\/api\/(auth\/user|desktop)\//.test(r.path)]).toEqual([r.path, true]);
    }
  });

  it('lists exactly the error codes of the catalogues', () => {
    const codes = new Set([gatewayErrorCatalogue, authErrorCatalogue, desktopErrorCatalogue].flatMap((c) => Object.keys(c.codes)));
    expect([...openApi().doc.components.schemas.ErrorCode.enum].sort()).toEqual([...codes].sort());
  });

  it('gives every operation a success answer (a redirect counts) and its 5xx answers', () => {
    for (const { method, template, operation } of openApi().operations) {
      const statuses = Object.keys(operation.responses);
      expect([`${method} ${template}`, statuses.some((s) => /^[23]\d\d$/.test(s)), ['500', '503', '504'].every((s) => statuses.includes(s))]).toEqual([`${method} ${template}`, true, true]);
    }
  });
});

describe('the answer checker', () => {
  const login = (data: Record<string, unknown>) => JSON.stringify({ success: true, message: 'Login successful', data });
  const user = { id: '6740c0ffee0000000000b001', name: 'Grace', email: 'g@example.com', role: 'user', disabled: false, createdAt: '2026-11-22T08:00:00.000Z', updatedAt: '2026-11-22T08:00:00.000Z' };
  const answer = (status: number, text: string, path = '/api/auth/user/login', method = 'POST', contentType = 'application/json; charset=utf-8') => ({ method, path, status, contentType, text });

  it('accepts an answer as documented (the control)', () => {
    expect(openApiProblems(answer(200, login({ accessToken: 'a.b.c', expiresIn: 900, user })))).toEqual([]);
  });

  it.each([
    ['an undocumented field', login({ accessToken: 'a.b.c', expiresIn: 900, user, refreshToken: 'leak' }), /must NOT have additional properties/],
    ['a missing field', login({ accessToken: 'a.b.c', user }), /must have required property 'expiresIn'/],
    ['a field of a user that is not documented', login({ accessToken: 'a.b.c', expiresIn: 900, user: { ...user, passwordHash: 'x' } }), /unevaluated/],
    ['another message', JSON.stringify({ success: true, message: 'Welcome', data: { accessToken: 'a.b.c', expiresIn: 900, user } }), /constant/],
  ])('refuses %s', (_label, text, problem) => {
    expect(openApiProblems(answer(200, text)).join('\n')).toMatch(problem);
  });

  it('refuses a status the route does not document, an error code outside the catalogue, and another content type', () => {
    expect(openApiProblems(answer(418, '{}'))).toEqual([expect.stringMatching(/status 418 is not documented/)]);
    expect(openApiProblems(answer(401, JSON.stringify({ success: false, message: 'x', code: 'nope' }))).join('\n')).toMatch(/allowed values/);
    expect(openApiProblems(answer(200, 'hi', '/api/auth/user/login', 'POST', 'text/plain'))).toEqual([expect.stringMatching(/content type text\/plain is not documented/)]);
  });

  it("allows an undocumented route nothing but the spec's 404", () => {
    expect(openApiProblems(answer(404, JSON.stringify({ success: false, message: 'Route not found', code: 'not_found' }), '/api/nothing', 'GET'))).toEqual([]);
    expect(openApiProblems(answer(200, '{}', '/api/nothing', 'GET'))).toEqual([expect.stringMatching(/no documented operation/)]);
  });
});
