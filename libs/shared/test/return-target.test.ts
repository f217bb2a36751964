// The one return-target rule (return-target.ts), on the forms the fourth outside attack sent: each
// resolves as a browser would and is kept only on an allowed origin and path, always absolute.
import { allowedReturnTarget } from '../src/return-target';

const origin = 'http://localhost:8080';
const pages = [`${origin}/`, 'https://app.example/'];
const target = (raw: unknown) => allowedReturnTarget(raw, pages, origin);

describe('allowedReturnTarget', () => {
  it.each([
    '/.//evil.example',
    '/..//evil.example',
    '/%2e//evil.example',
    '/.\\/evil.example',
    `${origin}//evil.example`,
    '/a/..//evil.example',
    '//evil.example/steal',
    '/\t/evil.example/steal',
    '\\\\evil.example',
    'https://evil.example/steal',
    'javascript:alert(1)',
    'data:text/html,hi',
    `${origin}@evil.example/`,
    'https://app.example@evil.example/',
    'https://user:pass@app.example/',
    'https://app.example.evil.example/',
    'http://app.example/',
  ])('refuses %j', (raw) => {
    expect(target(raw)).toBeUndefined();
  });

  it.each([
    ['/account', `${origin}/account`],
    ['/account?from=test#top', `${origin}/account?from=test#top`],
    ['/a/../account', `${origin}/account`],
    ['https://app.example/signed-in', 'https://app.example/signed-in'],
  ])('keeps %j as %j', (raw, expected) => {
    expect(target(raw)).toBe(expected);
  });

  it('holds a listed path as a prefix of whole segments, and refuses what is not a string', () => {
    const apps = ['https://app.example/app'];
    expect(allowedReturnTarget('https://app.example/app/x', apps)).toBe('https://app.example/app/x');
    expect(allowedReturnTarget('https://app.example/app', apps)).toBe('https://app.example/app');
    expect(allowedReturnTarget('https://app.example/application', apps)).toBeUndefined();
    expect(allowedReturnTarget('/app/x', apps)).toBeUndefined();
    expect(target(undefined)).toBeUndefined();
    expect(target(42)).toBeUndefined();
    expect(target('/x'.repeat(1100))).toBeUndefined();
  });
});
