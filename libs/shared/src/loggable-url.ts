// A URL as it may be written anywhere outside the process (request log, trace attributes): its
// query string kept, the values of keys that name a secret blanked.
import { secretQueryKeys } from './secrets';

/** The path (or URL) with its query string, secret query values blanked so that no token leaves the process. */
export function loggablePath(originalUrl: string): string {
  const q = originalUrl.indexOf('?');
  // Most queries name no secret: the URL is written as it came, with nothing split or joined.
  if (q < 0 || !namesSecret(originalUrl, q + 1)) return originalUrl;
  const params = originalUrl.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    return eq >= 0 && isSecretKey(pair.slice(0, eq)) ? `${pair.slice(0, eq)}=[redacted]` : pair;
  });
  return `${originalUrl.slice(0, q)}?${params.join('&')}`;
}

/** Whether a key of the query from `from` on names a secret (a key without `=` has no value to blank). */
function namesSecret(url: string, from: number): boolean {
  let start = from;
  while (start < url.length) {
    let end = url.indexOf('&', start);
    if (end < 0) end = url.length;
    const eq = url.indexOf('=', start);
    if (eq >= 0 && eq < end && isSecretKey(url.slice(start, eq))) return true;
    start = end + 1;
  }
  return false;
}

const PLAIN_KEY = /^[A-Za-z0-9_.-]*$/;

/** A key names a secret in any letter case, percent-encoded (`t%6Fken`) or bracketed (`token[]`, `user[password]`). */
function isSecretKey(raw: string): boolean {
  // The common key (`platform`, `page_size`): nothing to decode or split.
  if (PLAIN_KEY.test(raw)) return secretQueryKeys.has(raw.toLowerCase());
  let key = raw.replace(/\+/g, ' ');
  try {
    key = decodeURIComponent(key);
  } catch {
    // Not valid percent-encoding: judged as written.
  }
  return key
    .toLowerCase()
    .split(/[[\]]+/)
    .some((part) => secretQueryKeys.has(part.trim()));
}
