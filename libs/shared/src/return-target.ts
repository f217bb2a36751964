// Where a browser may be sent back to, after a sign-in, a mailed link or an identity provider's round
// trip: one rule for the hosted pages and for auth's `returnTo`. A target is resolved as the browser
// would navigate to it (which also drops tabs and newlines), and kept only when it is an http(s) URL
// with no user name or password, on an allowed origin and under an allowed path; a path of that origin
// that begins with `//` is refused too, so nothing can later be read as protocol-relative. The answer
// is always absolute, so no caller can turn it back into a relative one. Pure: it runs in the pages'
// bundle as it runs in Node.

/** The absolute URL to send the browser to, or undefined when `raw` is not an allowed target. `base` resolves relative targets (a page's own origin). */
export function allowedReturnTarget(raw: unknown, allowed: readonly string[], base?: string): string | undefined {
  if (typeof raw !== 'string' || raw === '' || raw.length > 2048) return undefined;
  let url: URL;
  try {
    url = base === undefined ? new URL(raw) : new URL(raw, base);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.pathname.startsWith('//')) return undefined;
  const fits = allowed.some((entry) => {
    let place: URL;
    try {
      place = new URL(entry);
    } catch {
      return false;
    }
    if (url.origin !== place.origin) return false;
    const prefix = place.pathname.endsWith('/') ? place.pathname : `${place.pathname}/`;
    return url.pathname === place.pathname || url.pathname.startsWith(prefix);
  });
  return fits ? url.href : undefined;
}
