// An app's back-channel logout endpoint, for the tests: it takes the logout tokens the provider
// POSTs (`logout_token`, form-encoded) and keeps them; the tests read them back over HTTP (the
// receiver runs in the jest global setup's process, the tests in workers). It can be told to refuse
// the next tokens for a subject, as an app that is down would, to show they are tried again.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BackchannelReceiver {
  /** Where the provider POSTs (an app's `backchannel_logout_uri`). */
  url: string;
  close(): Promise<void>;
}

/** A logout token as received, and whether it was refused (503) to be tried again. */
export interface ReceivedLogout {
  logoutToken: string;
  refused: boolean;
  at: number;
}

const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });

const subjectOf = (token: string): string | undefined => {
  try {
    return (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub?: string }).sub;
  } catch {
    return undefined;
  }
};

export async function startBackchannelReceiver(): Promise<BackchannelReceiver> {
  const received: ReceivedLogout[] = [];
  /** Subject to how many more of its tokens to refuse. */
  const refuse = new Map<string, number>();
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://receiver');
    if (req.method === 'POST' && url.pathname === '/backchannel-logout') {
      const token = new URLSearchParams(await readBody(req)).get('logout_token') ?? '';
      const sub = subjectOf(token) ?? '';
      const left = refuse.get(sub) ?? 0;
      if (left > 0) refuse.set(sub, left - 1);
      received.push({ logoutToken: token, refused: left > 0, at: Date.now() });
      res.writeHead(left > 0 ? 503 : 200, { 'cache-control': 'no-store' }).end();
      return;
    }
    // The tests' side: what was received for a subject, and refusals to come.
    const sub = url.searchParams.get('sub') ?? '';
    if (req.method === 'GET' && url.pathname === '/received') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received.filter((r) => subjectOf(r.logoutToken) === sub)));
      return;
    }
    if (req.method === 'POST' && url.pathname === '/refuse') {
      refuse.set(sub, Number(url.searchParams.get('times') ?? '1'));
      res.writeHead(204).end();
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/backchannel-logout`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The tests' side of a receiver at `logoutUrl`: the tokens received for `sub`. */
export async function receivedLogouts(logoutUrl: string, sub: string): Promise<ReceivedLogout[]> {
  const res = await fetch(new URL(`/received?sub=${encodeURIComponent(sub)}`, logoutUrl));
  return (await res.json()) as ReceivedLogout[];
}

/** The tests' side: the receiver refuses the next `times` tokens for `sub` (503), as an app that is down. */
export async function refuseLogouts(logoutUrl: string, sub: string, times = 1): Promise<void> {
  await fetch(new URL(`/refuse?sub=${encodeURIComponent(sub)}&times=${times}`, logoutUrl), { method: 'POST' });
}
