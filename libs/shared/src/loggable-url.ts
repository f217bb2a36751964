// A URL as it may be written anywhere outside the process (request log, trace attributes): its
// query string kept, the values of keys that name a secret blanked.
import { secretQueryKeys } from './secrets';

/**
 * The path (or URL) with its query string, secret query values blanked so that no token leaves the
 * process. The query is read pair by pair in place (a pair's key is what precedes its first `=`; a
 * key without one has no value to blank), and a new string is made only once a secret is found:
 * most queries name none and are written as they came.
 */
export function loggablePath(originalUrl: string): string {
  const q = originalUrl.indexOf('?');
  if (q < 0) return originalUrl;
  let logged = '';
  /** Where the original URL has been copied up to into `logged` (0: nothing blanked yet). */
  let copied = 0;
  for (let start = q + 1; start < originalUrl.length; ) {
    let end = originalUrl.indexOf('&', start);
    if (end < 0) end = originalUrl.length;
    const eq = originalUrl.indexOf('=', start);
    if (eq >= 0 && eq < end && isSecretKey(originalUrl.slice(start, eq))) {
      logged += `${originalUrl.slice(copied, eq + 1)}[redacted]`;
      copied = end;
    }
    start = end + 1;
  }
  return copied === 0 ? originalUrl : logged + originalUrl.slice(copied);
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
