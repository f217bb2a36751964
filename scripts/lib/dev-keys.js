// Development signing keys for access tokens: made once per machine into .stack/keys, never committed.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { generateKeyPairSync } = require('node:crypto');

/** @param {string} dir @returns {{ privateKey: string, publicKey: string }} */
function ensureDevKeys(dir) {
  const privatePath = path.join(dir, 'access-token.key');
  const publicPath = path.join(dir, 'access-token.pub');
  if (!fs.existsSync(privatePath) || !fs.existsSync(publicPath)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { privateKey, publicKey } = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    fs.writeFileSync(privatePath, privateKey, { mode: 0o600 });
    fs.writeFileSync(publicPath, publicKey);
  }
  return { privateKey: fs.readFileSync(privatePath, 'utf8'), publicKey: fs.readFileSync(publicPath, 'utf8') };
}

module.exports = { ensureDevKeys };
