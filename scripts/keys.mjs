#!/usr/bin/env node
// Rotating the access tokens' signing key without signing anyone out (docs/operations.md, "Rotating
// the signing key"). The private key file holds one or more PEM keys: auth signs with the last, and
// every one verifies. The public key file is always the public half of each, in the same order, for
// the gateway and desktop (and the key set they publish). Three steps, each safe whatever restarts
// when, since no key signs before every verifier can hold it:
//
//   npm run keys -- add     a new key that verifies but does not sign yet (put before the signing one)
//   npm run keys -- promote the newest key signs from auth's next start (moved last)
//   npm run keys -- retire  drops the oldest key, once every token it signed has expired
//   npm run keys -- list    each key's kid, and which one signs
//
// Each takes --private <file> [--public <file>]; the defaults are npm start's .stack/keys/access-token.key
// and .pub. The files are replaced whole (written beside, then renamed), the private one readable
// by its owner only.
//
// Defaults: .stack/keys/access-token.key and .pub (npm start's). The files are replaced whole
// (written beside, then renamed), the private one readable by its owner only.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [command, ...rest] = process.argv.slice(2);
const option = (name, fallback) => {
  const at = rest.indexOf(`--${name}`);
  return at >= 0 && rest[at + 1] ? path.resolve(rest[at + 1]) : fallback;
};
const privatePath = option('private', path.join(root, '.stack/keys/access-token.key'));
const publicPath = option('public', privatePath.replace(/\.key$/, '.pub'));
const say = (line) => process.stdout.write(`keys: ${line}\n`);
const fail = (line) => {
  process.stderr.write(`keys: ${line}\n`);
  process.exit(1);
};

const blocks = (text) => text.match(/-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g) ?? [];
const kidOf = (publicKey) => {
  const { crv, kty, x, y } = publicKey.export({ format: 'jwk' });
  return createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
};
function readKeys() {
  if (!fs.existsSync(privatePath)) return [];
  return blocks(fs.readFileSync(privatePath, 'utf8')).map((pem, i) => {
    try {
      const key = createPrivateKey(pem);
      if (key.asymmetricKeyType !== 'ec') throw new Error('not an EC (P-256) key');
      return { pem, publicKey: createPublicKey(key) };
    } catch (err) {
      return fail(`${privatePath}: key ${i + 1} cannot be read (${err.message}); nothing was changed`);
    }
  });
}
function replace(file, text, mode) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const next = `${file}.next-${process.pid}`;
  fs.writeFileSync(next, text, { mode });
  fs.renameSync(next, file);
}
function write(keys) {
  // Renamed over, a device or a link would be replaced by a plain file: both are checked before either is written.
  for (const file of [privatePath, publicPath]) if (fs.existsSync(file) && !fs.lstatSync(file).isFile()) fail(`${file} is not a plain file: nothing was changed`);
  replace(privatePath, keys.map((k) => k.pem.trim()).join('\n') + '\n', 0o600);
  replace(publicPath, keys.map((k) => k.publicKey.export({ type: 'spki', format: 'pem' }).trim()).join('\n') + '\n', 0o644);
}
function list(keys) {
  keys.forEach((k, i) => say(`${i === keys.length - 1 ? 'signs   ' : 'verifies'} kid ${kidOf(k.publicKey)}`));
}

const keys = readKeys();
switch (command) {
  case 'add': {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    const added = { pem: privateKey, publicKey: createPublicKey(privateKey) };
    // Before the signing key: it verifies from the next restarts on, and signs only once promoted.
    const next = keys.length === 0 ? [added] : [...keys.slice(0, -1), added, keys[keys.length - 1]];
    write(next);
    say(`added kid ${kidOf(added.publicKey)} to ${privatePath} (${next.length} keys) and wrote ${publicPath}`);
    list(next);
    if (keys.length > 0) say('next: give every service the new files and restart them (nothing signs with the new key yet), then: npm run keys -- promote');
    break;
  }
  case 'promote': {
    if (keys.length < 2) fail(`${privatePath} holds ${keys.length} key${keys.length === 1 ? '' : 's'}: add one first (npm run keys -- add)`);
    const newest = keys[keys.length - 2];
    const next = [...keys.slice(0, -2), keys[keys.length - 1], newest];
    write(next);
    say(`kid ${kidOf(newest.publicKey)} signs from auth's next start`);
    list(next);
    say('next: restart auth; once ACCESS_TOKEN_TTL_SECONDS have passed, npm run keys -- retire');
    break;
  }
  case 'retire': {
    if (keys.length < 2) fail(`${privatePath} holds ${keys.length} key${keys.length === 1 ? '' : 's'}: nothing to retire (the last key signs)`);
    const [oldest, ...kept] = keys;
    write(kept);
    say(`retired kid ${kidOf(oldest.publicKey)}; ${kept.length} key${kept.length === 1 ? '' : 's'} left`);
    list(kept);
    say('next: give every service the new files and restart them (retire only once every token the old key signed has expired: ACCESS_TOKEN_TTL_SECONDS after auth began signing with the newer one)');
    break;
  }
  case 'list':
    if (keys.length === 0) fail(`${privatePath}: no key`);
    list(keys);
    break;
  default:
    fail(`usage: npm run keys -- add|promote|retire|list [--private <file>] [--public <file>] (got ${command ?? 'nothing'})`);
}
