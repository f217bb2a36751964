#!/usr/bin/env node
// Writes each service's pass-through block in docker-compose.yml from its config schema (built):
// every variable the service reads that compose does not set itself, as `NAME: ${NAME:-}` (unset in
// the shell and .env: the service's default), a service's own namespace (MONGO_DB, REDIS_PREFIX,
// QUEUE_PREFIX) as `${<SERVICE>_<NAME>:-}`. A variable compose sets another way is named with its
// reason in deploy/compose/not-passed-through.json. A new setting needs no edit here:
// `npm run compose:env` after `npm run build`; `--check` (test/repo/compose.test.ts) fails while the
// file differs from what the schemas give.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const composePath = path.join(root, 'docker-compose.yml');
const built = (file) => {
  const full = path.join(root, file);
  if (!fs.existsSync(full)) {
    process.stderr.write(`${file} is missing: run npm run build first (the schemas are read from the built services)\n`);
    process.exit(2);
  }
  return require(full);
};
const { variablesOf } = built('libs/shared/dist/index.js');
const schemas = {
  auth: built('services/auth/dist/index.js').authSchema,
  desktop: built('services/desktop/dist/index.js').desktopSchema,
  notifier: built('services/notifier/dist/index.js').notifierSchema,
  gateway: built('services/gateway/dist/index.js').gatewaySchema,
};
const notPassed = JSON.parse(fs.readFileSync(path.join(root, 'deploy/compose/not-passed-through.json'), 'utf8'));
const NAMESPACED = new Set(['MONGO_DB', 'REDIS_PREFIX', 'QUEUE_PREFIX']);
const MARKER = '      # Every other variable of the service’s schema, from the shell or .env (unset: the default),';
const PASSED = /^ {6}([A-Z0-9_]+): \$\{[A-Z0-9_]+:-\}$/;

const text = fs.readFileSync(composePath, 'utf8');
const lines = text.split('\n');
const composed = yaml.load(text).services;

for (const [service, schema] of Object.entries(schemas)) {
  const begin = lines.findIndex((line) => line === `  ${service}:`);
  const end = lines.findIndex((line, i) => i > begin && /^ {0,2}\S/.test(line));
  const marker = lines.findIndex((line, i) => i > begin && i < end && line === MARKER);
  if (begin < 0 || marker < 0) {
    process.stderr.write(`docker-compose.yml: service ${service} has no line "${MARKER.trim()}" to write its pass-through under\n`);
    process.exit(2);
  }
  // The marker's comment runs on over the lines that start with `#`; the block follows it.
  let from = marker + 1;
  while (lines[from].trim().startsWith('#')) from++;
  let to = from;
  while (PASSED.test(lines[to])) to++;
  const current = new Set(lines.slice(from, to).map((line) => PASSED.exec(line)[1]));
  // What compose sets itself (the shared anchor included), above the block.
  const explicit = new Set(Object.keys(composed[service].environment ?? {}).filter((name) => !current.has(name)));
  const wanted = variablesOf(schema).filter((name) => !explicit.has(name) && !(name in notPassed));
  const block = wanted.map((name) => `      ${name}: \${${NAMESPACED.has(name) ? `${service.toUpperCase()}_${name}` : name}:-}`);
  lines.splice(from, to - from, ...block);
}

const wantedText = lines.join('\n');
if (process.argv.includes('--check')) {
  if (wantedText !== text) {
    process.stderr.write('docker-compose.yml: a pass-through block differs from the services’ schemas; run npm run compose:env (after npm run build)\n');
    process.exit(1);
  }
  process.stdout.write('docker-compose.yml passes every variable of the services’ schemas through\n');
} else {
  fs.writeFileSync(composePath, wantedText);
  process.stdout.write(wantedText === text ? 'docker-compose.yml was current\n' : 'wrote the pass-through blocks of docker-compose.yml\n');
}
