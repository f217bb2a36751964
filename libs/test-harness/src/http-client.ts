// The Act client of every HTTP test: never throws on a status, parses JSON, exposes cookies. Answers
// of a stack under test are checked against the OpenAPI description (openapi.ts).
import zlib from 'node:zlib';
import { assertDocumented } from './openapi';
import { workerRequire } from './worker-require';

/**
 * The transport (http-transport.js, which says why not `fetch`), loaded by the jest worker's own
 * require, so that the worker's files share its pool and its one copy of undici.
 */
const transport = workerRequire(require.resolve('./http-transport.js')) as {
  send(url: string, options: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }): Promise<{
    statusCode: number;
    headers: Record<string, string | string[] | undefined>;
    body: { arrayBuffer(): Promise<ArrayBuffer> };
  }>;
};

/** What Node's `fetch` sends unless told otherwise, so that a request reads to the services as it did when this client was `fetch`. */
const FETCH_HEADERS: Record<string, string> = { accept: '*/*', 'accept-language': '*', 'sec-fetch-mode': 'cors', 'user-agent': 'node', 'accept-encoding': 'gzip, deflate' };

export interface Answer<B = any> {
  status: number;
  headers: Headers;
  body: B;
  text: string;
  setCookies: string[];
}

export interface CallOptions {
  body?: unknown;
  /** Sent as-is (for malformed JSON tests); wins over `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  cookie?: string;
  /** Gives up (rejects with a TimeoutError) when no answer has come in this many ms, as an app does. */
  timeoutMs?: number;
}

export async function call<B = any>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Answer<B>> {
  const headers: Record<string, string> = { ...FETCH_HEADERS };
  // Header names are case-insensitive: a caller's own, in whatever case, replaces the default.
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  let payload: string | undefined;
  if (options.rawBody !== undefined) {
    payload = options.rawBody;
    headers['content-type'] ??= 'application/json';
  } else if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  if (options.cookie) headers.cookie = options.cookie;
  const signal = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
  // Redirects are answers here, as with fetch's `redirect: 'manual'`: undici's request follows none.
  const res = await transport.send(`${baseUrl}${path}`, { method, headers, body: payload, signal });
  const received = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) received.append(name, one);
  }
  const raw = Buffer.from(await res.body.arrayBuffer());
  // Decoded as fetch decodes what it asked for.
  const encoding = received.get('content-encoding');
  const text = (encoding === 'gzip' ? zlib.gunzipSync(raw) : encoding === 'deflate' ? zlib.inflateSync(raw) : raw).toString('utf8');
  assertDocumented(baseUrl, { method, path, status: res.statusCode, contentType: received.get('content-type'), text });
  let body: B;
  try {
    body = text ? JSON.parse(text) : (undefined as B);
  } catch {
    body = undefined as B;
  }
  return { status: res.statusCode, headers: received, body, text, setCookies: received.getSetCookie() };
}

/** Reads one cookie's value out of Set-Cookie headers. */
export function cookieValue(setCookies: string[], name: string): string | undefined {
  for (const header of setCookies) {
    const [pair] = header.split(';');
    const eq = pair.indexOf('=');
    if (pair.slice(0, eq).trim() === name) return decodeURIComponent(pair.slice(eq + 1));
  }
  return undefined;
}
