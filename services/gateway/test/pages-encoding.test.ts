// How the gateway sends a page or an asset compressed: brotli where the request takes it, else gzip,
// else as it is; each encoded form made once, at the first request that takes it, and shared by the
// requests that came for it meanwhile.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { Pages } from '../src/pages';

let dir: string;
let server: http.Server;
let base: string;
let pages: Pages;
const script = `export const texts = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `text number ${i}`))};\n`;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-pages-encoding-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'signin.html'), '<!doctype html>\n<html lang="en"><head><title>Sign in</title></head><body><noscript>x</noscript></body></html>\n');
  fs.writeFileSync(path.join(dir, 'assets', 'app-1a2b3c.js'), script);
  fs.writeFileSync(path.join(dir, 'assets', 'tiny-1a2b3c.js'), 'export {};\n');
  pages = new Pages(dir, { returnOrigins: [], securityHeaders: [], production: false });
  server = http.createServer((req, res) => {
    if (!pages.serve(req, res, new URL(req.url ?? '/', 'http://x').pathname, 'req-1')) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The raw answer (fetch would undo the encoding): status, headers and the bytes as sent. */
function get(pathname: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${pathname}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the pages’ encodings', () => {
  it('sends brotli to a request that takes it, else gzip, else the file as it is; each decodes to the same bytes', async () => {
    const br = await get('/assets/app-1a2b3c.js', { 'accept-encoding': 'gzip, deflate, br' });
    const gz = await get('/assets/app-1a2b3c.js', { 'accept-encoding': 'gzip' });
    const plain = await get('/assets/app-1a2b3c.js');
    expect([br.status, br.headers['content-encoding'], gz.headers['content-encoding'], plain.headers['content-encoding']]).toEqual([200, 'br', 'gzip', undefined]);
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(script);
    expect(zlib.gunzipSync(gz.body).toString()).toBe(script);
    expect(plain.body.toString()).toBe(script);
    expect(br.body.length).toBeLessThan(script.length / 3);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    // One ETag for the file, whatever the encoding (as before the forms were made lazily).
    expect(new Set([br.headers.etag, gz.headers.etag, plain.headers.etag]).size).toBe(1);
  });

  it('makes each form once: requests that come together for a page not yet compressed get the same bytes', async () => {
    const brotli = jest.spyOn(zlib, 'brotliCompress');
    const answers = await Promise.all(Array.from({ length: 8 }, () => get('/login', { 'accept-encoding': 'br' })));
    await get('/login', { 'accept-encoding': 'br' });
    expect(brotli).toHaveBeenCalledTimes(1);
    brotli.mockRestore();
    expect(answers.map((a) => a.headers['content-encoding'])).toEqual(Array(8).fill('br'));
    expect(new Set(answers.map((a) => a.body.toString('base64'))).size).toBe(1);
    expect(zlib.brotliDecompressSync(answers[0].body).toString()).toMatch(/^<!doctype html>/);
  });

  it('sends a small file as it is, and a HEAD with the length but no body', async () => {
    const tiny = await get('/assets/tiny-1a2b3c.js', { 'accept-encoding': 'br' });
    expect([tiny.headers['content-encoding'], tiny.body.toString()]).toEqual([undefined, 'export {};\n']);
    const head = await get('/assets/app-1a2b3c.js', { 'accept-encoding': 'br' }, 'HEAD');
    expect([head.status, head.headers['content-encoding'], head.body.length]).toEqual([200, 'br', 0]);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
  });
});
