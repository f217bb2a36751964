// The version check answered before Express: which requests it answers itself and which it hands on
// (to Express, whose route writes the same answer). Here tracing is off, so a caller's traceparent
// does not send a request through the middlewares (libs/shared's tracing test covers tracing on).
import http from 'node:http';
import { closeServer, listen } from '@acct/shared';
import { versionAnswerWriter, versionCheckFirst } from '../src/entry-points/http/latest-version';
import type { Release } from '../src/domain/ports';
import type { Platform } from '../src/domain/platforms';

const HANDED_ON = 418;
const release: Release = { platform: 'linux', version: '2.4.1', url: 'https://downloads.example.com/app-2.4.1.AppImage', sha256: 'a'.repeat(64), notes: 'Fixes', mandatory: false, publishedAt: new Date('2026-11-20T10:00:00Z'), withdrawnAt: null };
const known: Partial<Record<Platform, Release>> = { linux: release };
let server: http.Server;
let base: string;

beforeAll(async () => {
  const next: http.RequestListener = (_req, res) => {
    res.writeHead(HANDED_ON);
    res.end();
  };
  const listener = versionCheckFirst({ latestReleases: { latest: async (platform) => known[platform], forget: () => undefined }, http: { observe: () => undefined } }, versionAnswerWriter(60), next);
  server = http.createServer(listener);
  base = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
});

afterAll(() => closeServer(server));

const ask = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, init);

describe('the version check before Express', () => {
  it('answers a well-formed check of a known release itself, with its cache headers, and 304 to a client that has it', async () => {
    const res = await ask('/api/desktop/latest-version?platform=linux');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    const body = await res.json();
    expect(body).toMatchObject({ success: true, message: 'Latest version', data: { version: '2.4.1' } });
    const again = await ask('/api/desktop/latest-version?platform=linux', { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('answers a check carrying a trace context itself when no span would be made of it (tracing off here)', async () => {
    for (const flags of ['00', '01']) {
      const res = await ask('/api/desktop/latest-version?platform=linux', { headers: { traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-${flags}` } });
      expect(res.status).toBe(200);
    }
  });

  it('hands on what it does not answer: another method or path, a malformed or repeated platform, no release', async () => {
    for (const [path, method] of [
      ['/api/desktop/latest-version?platform=linux', 'POST'],
      ['/api/desktop/latest-versions?platform=linux', 'GET'],
      ['/api/desktop/latest-version?platform=beos', 'GET'],
      ['/api/desktop/latest-version?platform=linux&platform=win32', 'GET'],
      ['/api/desktop/latest-version?platform=win32', 'GET'],
    ] as const) {
      expect({ path, method, status: (await ask(path, { method })).status }).toEqual({ path, method, status: HANDED_ON });
    }
  });
});
