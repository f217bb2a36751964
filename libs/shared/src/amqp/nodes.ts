// AMQP_URL's grammar, without amqplib: the config schema checks it at start, the client connects by it.

/** Seconds between heartbeats when AMQP_URL sets none: a node gone silent is noticed in about two. */
const DEFAULT_HEARTBEAT_SECONDS = 10;

/**
 * The node URLs of an AMQP_URL (one, or several comma-separated), each with a heartbeat unless it
 * sets its own. Throws a one-line reason for an entry that is not an amqp:// or amqps:// URL.
 */
export function amqpNodeUrls(value: string): string[] {
  const urls = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (urls.length === 0) throw new Error('expected one or more amqp:// URLs, comma-separated');
  return urls.map((url) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`entry ${urls.indexOf(url) + 1} is not a URL`);
    }
    if (parsed.protocol !== 'amqp:' && parsed.protocol !== 'amqps:') throw new Error(`expected amqp:// or amqps://, got ${parsed.protocol}//`);
    if (!parsed.searchParams.has('heartbeat')) parsed.searchParams.set('heartbeat', String(DEFAULT_HEARTBEAT_SECONDS));
    return parsed.toString();
  });
}

