// The one key pair helper of the tests: an ES256 (P-256) pair as PEM text, what auth signs with and
// the others verify with. Each call makes a new pair, so no two stacks trust each other's tokens.
import { generateKeyPairSync } from 'node:crypto';

export interface TestKeys {
  privateKey: string;
  publicKey: string;
}

export function testKeys(): TestKeys {
  return generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
}
