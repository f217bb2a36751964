// scripts/pin-images.mjs against a stand-in registry that speaks the part of the registry HTTP API
// v2 it uses (the Bearer token challenge, HEAD of a manifest), on copies of this checkout's own
// deployment files. No registry is reachable from this machine, so the committed files carry tags
// only; this shows that the one command pins them all, and that --check then holds.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const script = path.join(root, 'scripts/pin-images.mjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { timeout: 30_000, env: { ...process.env, REGISTRY_TIMEOUT_MS: '2000' } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A registry whose tags point at digests the test sets; every manifest needs a pull token. */
class StandInRegistry {
  readonly tags = new Map<string, string>();
  readonly requests: string[] = [];
  private server = http.createServer((req, res) => this.answer(req, res));
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    this.requests.push(`${req.method} ${url.pathname}`);
    if (url.pathname === '/token') {
      const scope = url.searchParams.get('scope') ?? '';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: `token-for-${scope}` }));
      return;
    }
    const manifest = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(url.pathname);
    if (!manifest) return void res.writeHead(404).end();
    const [, repository, tag] = manifest;
    if (req.headers.authorization !== `Bearer token-for-repository:${repository}:pull`) {
      res.writeHead(401, { 'www-authenticate': `Bearer realm="${this.url}/token",service="stand-in",scope="repository:${repository}:pull"` }).end();
      return;
    }
    // The multi-platform index is asked for first.
    if (!String(req.headers.accept).startsWith('application/vnd.oci.image.index.v1+json')) return void res.writeHead(406).end();
    const digest = this.tags.get(`${repository}:${decodeURIComponent(tag)}`);
    if (!digest) return void res.writeHead(404).end();
    res.writeHead(200, { 'docker-content-digest': digest, 'content-type': 'application/vnd.oci.image.index.v1+json' }).end();
  }
}

const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** The checkout's deployment files, copied: the script must find and rewrite the real ones. */
function copyDeploymentFiles(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-pin-'));
  for (const entry of fs.readdirSync(root)) if (/^docker-compose.*\.yml$|^Dockerfile$/.test(entry)) fs.copyFileSync(path.join(root, entry), path.join(dir, entry));
  fs.cpSync(path.join(root, 'deploy'), path.join(dir, 'deploy'), { recursive: true });
  return dir;
}

/** Every third-party image of the copy, as `repository:tag` the registry is asked for (Docker Hub's `library/` added). */
function imagesIn(dir: string): string[] {
  const texts = new Set<string>();
  const scan = (file: string) => {
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/^\s*(?:-\s+)?image:\s*["']?([^\s"'#]+)|^FROM\s+(\S+)/gm)) {
      const ref = (m[1] ?? m[2]).split('@')[0];
      if (!ref.startsWith('account-service/')) texts.add(ref);
    }
  };
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.ya?ml$|^Dockerfile$/.test(e.name)) scan(full);
    }
  };
  walk(dir);
  return [...texts].map((t) => (t.includes('/') ? t : `library/${t}`));
}

let registry: StandInRegistry;
let dir: string;
beforeEach(async () => {
  registry = new StandInRegistry();
  await registry.start();
  dir = copyDeploymentFiles();
});
afterEach(async () => {
  await registry.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const pin = () => run(['--root', dir, '--registry', `docker.io=${registry.url}`]);
const check = () => run(['--check', '--root', dir]);

describe('pinning images to digests (scripts/pin-images.mjs)', () => {
  it('finds the committed files unpinned, and names each reference', async () => {
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/docker-compose\.yml:\d+ mongo:7\.0: no digest/);
    expect(result.stderr).toMatch(/Dockerfile:\d+ node:24-bookworm-slim: no digest/);
    expect(result.stderr).toMatch(/deploy\/kubernetes\/stores-ha\/redis\.yaml:\d+ redis:7\.4-alpine: no digest/);
    expect(result.stderr).not.toContain('account-service/');
  });

  it('pins every third-party image with one command, keeping the tag, and --check then holds', async () => {
    const images = imagesIn(dir);
    expect(images.length).toBeGreaterThanOrEqual(6);
    for (const image of images) registry.tags.set(image, digestOf(image));

    const result = await pin();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`mongo:7.0 → ${digestOf('library/mongo:7.0')}`);
    const compose = fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain(`image: mongo:7.0@${digestOf('library/mongo:7.0')}`);
    expect(compose).toContain(`image: axllent/mailpit:v1.21@${digestOf('axllent/mailpit:v1.21')}`);
    expect(fs.readFileSync(path.join(dir, 'Dockerfile'), 'utf8')).toContain(`FROM node:24-bookworm-slim@${digestOf('library/node:24-bookworm-slim')} AS build`);
    expect(fs.readFileSync(path.join(dir, 'deploy/kubernetes/base/gateway.yaml'), 'utf8')).toContain('image: account-service/gateway:1.0.0\n');
    // One token per image, and each tag asked for once however many files name it.
    expect(registry.requests.filter((r) => r.startsWith('HEAD')).length).toBe(images.length * 2);

    expect(await check()).toMatchObject({ code: 0, stdout: expect.stringMatching(/all pinned/) });
  });

  it('moves a pin when its tag points at new bytes, and leaves the file untouched when none did', async () => {
    for (const image of imagesIn(dir)) registry.tags.set(image, digestOf(image));
    expect((await pin()).code).toBe(0);
    const before = fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8');
    expect((await pin()).stdout).toContain('every reference was pinned to these digests already');
    expect(fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8')).toBe(before);

    registry.tags.set('library/redis:7.4-alpine', digestOf('a rebuilt redis'));
    expect((await pin()).code).toBe(0);
    const after = fs.readFileSync(path.join(dir, 'docker-compose.ha.yml'), 'utf8');
    expect(after).toContain(`redis:7.4-alpine@${digestOf('a rebuilt redis')}`);
    expect(after).not.toContain(digestOf('library/redis:7.4-alpine'));
  });

  it('changes no file when one tag does not resolve, and says which', async () => {
    for (const image of imagesIn(dir)) if (image !== 'prom/prometheus:v2.55.1') registry.tags.set(image, digestOf(image));
    const before = fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8');
    const result = await pin();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('prom/prometheus:v2.55.1: docker.io/prom/prometheus has no tag v2.55.1');
    expect(result.stderr).toContain('no file was changed');
    expect(fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8')).toBe(before);
  });

  it('says so when the registry cannot be reached, within its timeout', async () => {
    await registry.stop();
    const result = await pin();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/did not answer \(ECONNREFUSED/);
    registry = new StandInRegistry();
    await registry.start();
  });
});
