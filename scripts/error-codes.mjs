#!/usr/bin/env node
// Writes the tables of docs/errors.md from the services' catalogues (their errors.ts, built): the error
// codes of the API's answers, and the codes a provider's callback redirects with;
// `npm run docs:errors` after adding or changing a code. test/repo/error-codes-docs.test.ts fails while
// docs/errors.md and the catalogues differ.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { errorCodeTable } = require(path.join(root, 'libs/shared/dist/index.js'));
const authErrors = require(path.join(root, 'services/auth/dist/errors.js'));
const catalogues = {
  gateway: require(path.join(root, 'services/gateway/dist/errors.js')).gatewayErrorCatalogue,
  auth: authErrors.authErrorCatalogue,
  desktop: require(path.join(root, 'services/desktop/dist/errors.js')).desktopErrorCatalogue,
};
const readmePath = path.join(root, 'docs', 'errors.md');
const readme = fs.readFileSync(readmePath, 'utf8');

/** `text` with the block between `<!-- name:start … -->` and `<!-- name:end -->` replaced by `table`. */
function withBlock(text, name, table) {
  const start = `<!-- ${name}:start (npm run docs:errors writes this table) -->`;
  const end = `<!-- ${name}:end -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) {
    process.stderr.write(`docs/errors.md has no ${start} … ${end} block to write into\n`);
    process.exit(1);
  }
  return `${text.slice(0, from + start.length)}\n${table}\n${text.slice(to)}`;
}

const next = withBlock(withBlock(readme, 'error-codes', errorCodeTable(catalogues)), 'identity-redirect-errors', authErrors.identityRedirectErrorTable());
if (next === readme) {
  process.stdout.write('docs/errors.md: the error codes are up to date\n');
} else {
  fs.writeFileSync(readmePath, next);
  process.stdout.write('docs/errors.md: error codes written\n');
}
