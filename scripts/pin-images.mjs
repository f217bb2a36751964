#!/usr/bin/env node
// Pins every third-party image the deployment files name to the digest its tag points at now, or
// checks that they are pinned. A tag can be moved to other bytes at any time; `name:tag@sha256:…`
// cannot, and keeps the tag for people to read. Our own images (account-service/*) are built from
// this tree and skipped.
//
//   node scripts/pin-images.mjs            resolve each tag at its registry, rewrite the files
//   node scripts/pin-images.mjs --check    exit 1 naming each reference without a digest, or whose
//                                          digest differs from another reference of the same tag
//
// Files: docker-compose*.yml, Dockerfile (FROM lines) and deploy/**/*.yaml under --root (the
// checkout by default). To move to a newer image, edit the tag (the digest may stay: it is
// replaced), run this, and commit what it changed. Resolving speaks the registry HTTP API v2 (the
// token challenge of Docker Hub, GHCR, Quay…) and asks for the multi-platform index, so the pin is
// the same on amd64 and arm64. Nothing is written unless every tag resolved.
//
// --registry host=url sends a registry's requests elsewhere (a mirror; the tests' stand-in);
// REGISTRY_TIMEOUT_MS (15000) bounds each request.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const OWN_IMAGES = /^account-service\//;
const ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');
const DIGEST = /^sha256:[0-9a-f]{64}$/;

const args = process.argv.slice(2);
const option = (name) => {
  const values = [];
  args.forEach((a, i) => a === name && args[i + 1] && values.push(args[i + 1]));
  return values;
};
const known = new Set(['--check', '--root', '--registry', '--help']);
const unknown = args.filter((a, i) => a.startsWith('--') && !known.has(a) && !['--root', '--registry'].includes(args[i - 1]));
if (args.includes('--help') || unknown.length) {
  process.stderr.write(`${unknown.length ? `unknown option ${unknown.join(', ')}\n` : ''}usage: node scripts/pin-images.mjs [--check] [--root <dir>] [--registry host=url]\n`);
  process.exit(unknown.length ? 2 : 0);
}
const root = path.resolve(option('--root')[0] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const overrides = new Map(option('--registry').map((pair) => pair.split(/=(.*)/s).slice(0, 2)));
const timeoutMs = Number(process.env.REGISTRY_TIMEOUT_MS ?? 15_000);

/** `[registry/]repository[:tag][@digest]` as Docker reads it (Docker Hub when the first part is no host). */
function parseReference(text) {
  const [withTag, digest] = text.split('@');
  const slash = withTag.indexOf('/');
  const first = slash === -1 ? '' : withTag.slice(0, slash);
  const hasHost = first.includes('.') || first.includes(':') || first === 'localhost';
  const host = hasHost ? first : 'docker.io';
  let rest = hasHost ? withTag.slice(slash + 1) : withTag;
  const colon = rest.lastIndexOf(':');
  const tag = colon > rest.lastIndexOf('/') ? rest.slice(colon + 1) : 'latest';
  if (colon > rest.lastIndexOf('/')) rest = rest.slice(0, colon);
  const repository = host === 'docker.io' && !rest.includes('/') ? `library/${rest}` : rest;
  return { host, repository, tag, digest, name: withTag };
}

/** Every image reference of the deployment files: file, line index, the text and where it sits in the line. */
function findReferences() {
  const files = [];
  for (const entry of fs.readdirSync(root)) if (/^docker-compose.*\.ya?ml$/.test(entry) || /^Dockerfile/.test(entry)) files.push(path.join(root, entry));
  const walk = (dir) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.ya?ml$/.test(entry.name)) files.push(full);
    }
  };
  walk(path.join(root, 'deploy'));
  const found = [];
  for (const file of files.sort()) {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      const match = /^(\s*(?:-\s+)?image:\s*["']?)([^\s"'#]+)/.exec(line) ?? /^(FROM\s+(?:--platform=\S+\s+)?)(\S+)/i.exec(line);
      if (!match || match[2].includes('$') || OWN_IMAGES.test(match[2]) || match[2] === 'scratch') return;
      found.push({ file, index, text: match[2], start: match[1].length, lines });
    });
  }
  return found;
}

async function request(url, init) {
  try {
    return await fetch(url, { ...init, redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new Error(`${new URL(url).host} did not answer (${err.cause?.code ?? err.name}: ${err.cause?.message ?? err.message})`);
  }
}

/** The digest `host/repository:tag` points at now: the index's, for every platform at once. */
async function resolveDigest({ host, repository, tag }) {
  const base = overrides.get(host) ?? `https://${host === 'docker.io' ? 'registry-1.docker.io' : host}`;
  const url = `${base}/v2/${repository}/manifests/${encodeURIComponent(tag)}`;
  let answer = await request(url, { method: 'HEAD', headers: { accept: ACCEPT } });
  if (answer.status === 401) {
    // The registry's token challenge: Bearer realm="…",service="…",scope="…".
    const challenge = answer.headers.get('www-authenticate') ?? '';
    const params = Object.fromEntries([...challenge.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!/^Bearer\s/i.test(challenge) || !params.realm) throw new Error(`${host} asks for credentials this script does not have (${challenge || 'no challenge'})`);
    const tokenUrl = new URL(params.realm);
    if (params.service) tokenUrl.searchParams.set('service', params.service);
    tokenUrl.searchParams.set('scope', params.scope ?? `repository:${repository}:pull`);
    const tokenAnswer = await request(tokenUrl.href, {});
    if (!tokenAnswer.ok) throw new Error(`${tokenUrl.host} refused a pull token (${tokenAnswer.status})`);
    const body = await tokenAnswer.json();
    const token = body.token ?? body.access_token;
    if (!token) throw new Error(`${tokenUrl.host} answered no token`);
    answer = await request(url, { method: 'HEAD', headers: { accept: ACCEPT, authorization: `Bearer ${token}` } });
  }
  if (answer.status === 404) throw new Error(`${host}/${repository} has no tag ${tag}`);
  if (answer.status === 429) throw new Error(`${host} limits pulls for now (429); try again later`);
  if (!answer.ok) throw new Error(`${host} answered ${answer.status} for ${repository}:${tag}`);
  const digest = answer.headers.get('docker-content-digest');
  if (!digest || !DIGEST.test(digest)) throw new Error(`${host} answered no sha256 digest for ${repository}:${tag}`);
  return digest;
}

const relative = (file) => path.relative(root, file);
const references = findReferences();
if (references.length === 0) {
  process.stderr.write(`no image references under ${root}\n`);
  process.exit(1);
}

if (args.includes('--check')) {
  const problems = [];
  const digestOf = new Map();
  for (const ref of references) {
    const { name, digest } = parseReference(ref.text);
    const where = `${relative(ref.file)}:${ref.index + 1} ${ref.text}`;
    if (!digest) problems.push(`${where}: no digest`);
    else if (!DIGEST.test(digest)) problems.push(`${where}: not a sha256 digest`);
    else if (digestOf.has(name) && digestOf.get(name) !== digest) problems.push(`${where}: another digest than elsewhere for ${name}`);
    else digestOf.set(name, digest);
  }
  for (const line of problems) process.stderr.write(`${line}\n`);
  process.stdout.write(problems.length ? `${problems.length} of ${references.length} image references not pinned: run npm run images:pin\n` : `${references.length} image references, all pinned\n`);
  process.exit(problems.length ? 1 : 0);
}

// Resolve each distinct tag once, then write every file.
const names = [...new Set(references.map((r) => parseReference(r.text).name))];
const resolved = new Map();
const failures = [];
for (const [i, name] of names.entries()) {
  const ref = parseReference(name);
  try {
    const digest = await resolveDigest(ref);
    resolved.set(name, digest);
    const count = references.filter((r) => parseReference(r.text).name === name).length;
    process.stdout.write(`[${i + 1}/${names.length}] ${name} → ${digest} (${count} reference${count === 1 ? '' : 's'})\n`);
  } catch (err) {
    failures.push(name);
    process.stderr.write(`[${i + 1}/${names.length}] ${name}: ${err.message}\n`);
  }
}
if (failures.length) {
  process.stderr.write(`${failures.length} of ${names.length} images did not resolve; no file was changed\n`);
  process.exit(1);
}
const changed = new Set();
for (const ref of references) {
  const { name } = parseReference(ref.text);
  const pinned = `${name}@${resolved.get(name)}`;
  if (pinned === ref.text) continue;
  const line = ref.lines[ref.index];
  ref.lines[ref.index] = line.slice(0, ref.start) + pinned + line.slice(ref.start + ref.text.length);
  changed.add(ref.file);
}
for (const file of changed) fs.writeFileSync(file, references.find((r) => r.file === file).lines.join('\n'));
process.stdout.write(changed.size ? `rewrote ${[...changed].map(relative).join(', ')}\n` : 'every reference was pinned to these digests already\n');
