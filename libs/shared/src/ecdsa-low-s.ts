// An ECDSA signature has two valid texts for one message: (r, s) and (r, n − s). A token whose
// signature could be written twice is two strings for one token (two cache keys, two log lines, two
// entries in anything keyed by the token's text), so tokens are signed and accepted in one form
// only: low-S, s ≤ n/2 (as Bitcoin's BIP 62 and Ethereum's EIP-2 do). OpenSSL signs either way,
// so the signer turns a high S into its low twin, which verifies the same.
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const HALF_ORDER = P256_ORDER >> 1n;

const sOf = (jose: Buffer) => BigInt(`0x${jose.subarray(32).toString('hex')}`);

/** Whether a JOSE ES256 signature (r and s, 32 bytes each) is in its low-S form. */
export function isLowS(jose: Buffer): boolean {
  return jose.length === 64 && sOf(jose) <= HALF_ORDER;
}

/** A compact JWS (`header.payload.signature`) whose ES256 signature is in its low-S form. */
export function withLowS(token: string): string {
  const dot = token.lastIndexOf('.');
  const jose = Buffer.from(token.slice(dot + 1), 'base64url');
  if (jose.length !== 64 || isLowS(jose)) return token;
  const low = Buffer.from((P256_ORDER - sOf(jose)).toString(16).padStart(64, '0'), 'hex');
  return `${token.slice(0, dot + 1)}${Buffer.concat([jose.subarray(0, 32), low]).toString('base64url')}`;
}

/** Whether a compact JWS's signature is in its low-S form (the verifiers' check). */
export function hasLowS(token: string): boolean {
  return isLowS(Buffer.from(token.slice(token.lastIndexOf('.') + 1), 'base64url'));
}
