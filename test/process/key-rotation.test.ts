// Rotating the access tokens' signing key with `npm run keys` (scripts/keys.mjs): the files as an
// operator's steps leave them, loaded by auth's issuer and the gateway's verifier exactly as the
// services load them (JWT_PRIVATE_KEY / JWT_PUBLIC_KEY), with tokens signed and checked all along,
// as under load: none is refused at any step, and each names the key that signed it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AccessTokenVerifier, type AccessClaims } from '@acct/shared';
import { AccessTokenIssuer } from '../../services/auth/src/security/access-token-issuer';

const root = path.resolve(__dirname, '..', '..');
// Each test its own key files: tests run in any order.
let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'key-rotation-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const files = () => ({ privateKey: path.join(dir, 'access-token.key'), publicKey: path.join(dir, 'access-token.pub') });
function keys(command: string) {
  const run = spawnSync(process.execPath, [path.join(root, 'scripts/keys.mjs'), command, '--private', files().privateKey], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}
const options = { issuer: 'account-service', audience: 'account-api', ttlSeconds: 900 };
/** Auth and the gateway as each would start now, from the files. */
const auth = () => new AccessTokenIssuer(fs.readFileSync(files().privateKey, 'utf8'), options);
const gateway = () => AccessTokenVerifier.fromConfig({ JWT_PUBLIC_KEY: fs.readFileSync(files().publicKey, 'utf8'), JWT_ISSUER: options.issuer, JWT_AUDIENCE: options.audience });
const claims: AccessClaims = { sub: 'u1', kind: 'user', role: 'user', sid: 'sid-1' };
const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid as string;

describe('rotating the signing key', () => {
  it('signs anyone out at no step: every token of every key still valid is accepted wherever it goes, in any restart order', () => {
    expect(keys('add').status).toBe(0);
    let issuer = auth();
    let verifier = gateway();
    const tokens: string[] = [];
    /** A burst of traffic: new tokens from the running auth, and every token still in clients' hands, checked by the running gateway and auth. */
    const traffic = () => {
      for (let i = 0; i < 50; i++) tokens.push(issuer.sign(claims));
      const refused = tokens.filter((t) => verifier.verify(t) === undefined || issuer.verifier.verify(t) === undefined);
      expect(refused).toEqual([]);
    };
    traffic();
    const oldKid = kidOf(tokens[0]);

    // 1. A new key that verifies but does not sign yet: services restart with it in any order.
    expect(keys('add').output).toMatch(/verifies kid .*\n.*signs {4}kid/);
    for (const restart of [() => (issuer = auth()), () => (verifier = gateway())]) {
      restart();
      traffic();
    }
    expect(new Set(tokens.map(kidOf))).toEqual(new Set([oldKid]));
    expect(verifier.keySet.keys).toHaveLength(2);

    // 2. Promoted: auth signs with it from its next start; the gateway already trusts it.
    expect(keys('promote').status).toBe(0);
    issuer = auth();
    traffic();
    verifier = gateway();
    traffic();
    const newKid = kidOf(tokens[tokens.length - 1]);
    expect(newKid).not.toBe(oldKid);

    // 3. Once the old key's tokens have expired, it is retired everywhere.
    expect(keys('retire').status).toBe(0);
    tokens.splice(0, tokens.length, ...tokens.filter((t) => kidOf(t) === newKid));
    issuer = auth();
    verifier = gateway();
    traffic();
    expect(verifier.keySet.keys.map((k) => k.kid)).toEqual([newKid]);
  });

  it('refuses a token of a key no longer in the set, and one naming no key of it', () => {
    expect(keys('add').status).toBe(0);
    const stale = auth();
    const token = stale.sign(claims);
    expect(keys('add').status).toBe(0);
    expect(keys('promote').status).toBe(0);
    expect(keys('retire').status).toBe(0);
    expect(gateway().verify(token)).toBeUndefined();
    const [, payload, signature] = token.split('.');
    const unknownKid = `${Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: 'no-such-key' })).toString('base64url')}.${payload}.${signature}`;
    expect(keys('add').status).toBe(0);
    expect(gateway().verify(unknownKid)).toBeUndefined();
  });

  it('says what it cannot do, and changes nothing', () => {
    const single = path.join(dir, 'single.key');
    const run = (command: string) => spawnSync(process.execPath, [path.join(root, 'scripts/keys.mjs'), command, '--private', single], { encoding: 'utf8' });
    expect(run('add').status).toBe(0);
    const before = fs.readFileSync(single, 'utf8');
    const retired = run('retire');
    expect([retired.status, retired.stderr]).toEqual([1, expect.stringMatching(/holds 1 key: nothing to retire/)]);
    expect(run('promote').stderr).toMatch(/add one first/);
    expect(run('rotate').stderr).toMatch(/^keys: usage: npm run keys -- add\|promote\|retire\|list/);
    expect(fs.readFileSync(single, 'utf8')).toBe(before);
    expect(fs.statSync(single).mode & 0o777).toBe(0o600);
    // A public "file" that is a device or a pipe is never renamed over (nor is the private one written).
    const pipe = path.join(dir, 'pipe');
    spawnSync('mkfifo', [pipe]);
    const refused = spawnSync(process.execPath, [path.join(root, 'scripts/keys.mjs'), 'add', '--private', single, '--public', pipe], { encoding: 'utf8' });
    expect([refused.status, refused.stderr]).toEqual([1, expect.stringMatching(/is not a plain file: nothing was changed/)]);
    expect(fs.readFileSync(single, 'utf8')).toBe(before);
    expect(fs.lstatSync(pipe).isFIFO()).toBe(true);
  });
});
