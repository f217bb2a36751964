// A URL as it may be written anywhere outside the process (request log, trace attributes): its
// query string kept, the values of keys that name a secret blanked.
import { secretQueryKeys } from './secrets';

/** The path (or URL) with its query string, secret query values blanked so that no token leaves the process. */
export function loggablePath(originalUrl: string): string {
  const q = originalUrl.indexOf('?');
  if (q < 0) return originalUrl;
  const params = originalUrl.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    return eq >= 0 && isSecretKey(pair.slice(0, eq)) ? `${pair.slice(0, eq)}=[redacted]` : pair;
  });
  return `${originalUrl.slice(0, q)}?${params.join('&')}`;
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
