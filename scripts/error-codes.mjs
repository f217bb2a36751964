#!/usr/bin/env node
// Writes the table of error codes in docs/errors.md from the services' catalogues (their errors.ts, built):
// `npm run docs:errors` after adding or changing a code. test/repo/error-codes-docs.test.ts fails while
// docs/errors.md and the catalogues differ.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { errorCodeTable } = require(path.join(root, 'libs/shared/dist/index.js'));
const catalogues = {
  gateway: require(path.join(root, 'services/gateway/dist/errors.js')).gatewayErrorCatalogue,
  auth: require(path.join(root, 'services/auth/dist/errors.js')).authErrorCatalogue,
  desktop: require(path.join(root, 'services/desktop/dist/errors.js')).desktopErrorCatalogue,
};
const START = '<!-- error-codes:start (npm run docs:errors writes this table) -->';
const END = '<!-- error-codes:end -->';
const readmePath = path.join(root, 'docs', 'errors.md');
const readme = fs.readFileSync(readmePath, 'utf8');
const from = readme.indexOf(START);
const to = readme.indexOf(END);
if (from < 0 || to < from) {
  process.stderr.write(`docs/errors.md has no ${START} … ${END} block to write into\n`);
  process.exit(1);
}
const next = `${readme.slice(0, from + START.length)}\n${errorCodeTable(catalogues)}\n${readme.slice(to)}`;
if (next === readme) {
  process.stdout.write('docs/errors.md: the error codes are up to date\n');
} else {
  fs.writeFileSync(readmePath, next);
  process.stdout.write('docs/errors.md: error codes written\n');
}
