// The Act client of every HTTP test: never throws on a status, parses JSON, exposes cookies. Answers
// of a stack under test are checked against the OpenAPI description (openapi.ts).
import { assertDocumented } from './openapi';

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
  const headers: Record<string, string> = { ...options.headers };
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
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body: payload, redirect: 'manual', signal });
  const text = await res.text();
  assertDocumented(baseUrl, { method, path, status: res.status, contentType: res.headers.get('content-type'), text });
  let body: B;
  try {
    body = text ? JSON.parse(text) : (undefined as B);
  } catch {
    body = undefined as B;
  }
  return { status: res.status, headers: res.headers, body, text, setCookies: res.headers.getSetCookie() };
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
